import CYAML

/// A YAML document as libyaml's loader reads it (Debian's libyaml): scalars, sequences and
/// mappings, nothing more. Bounded: a file over 64 KB, or one whose aliases would unfold into more
/// than 10,000 nodes, is refused rather than followed.
indirect enum YAMLNode: Equatable {
    /// Its text, and whether it was plain (unquoted: `true` is a boolean only so).
    case scalar(String, plain: Bool)
    case sequence([YAMLNode])
    /// In the file's order.
    case mapping([YAMLPair])

    static let maxBytes = 64 * 1024
    static let maxNodes = 10_000

    struct Failure: Error {
        let reason: String
    }

    /// The text of a plain or quoted scalar; nil for a sequence or a mapping.
    var string: String? {
        if case .scalar(let text, _) = self { text } else { nil }
    }

    /// A plain `true` or `false` (as Imager writes them); nil for anything else.
    var bool: Bool? {
        guard case .scalar(let text, plain: true) = self else { return nil }
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    /// The first document of `text`; nil when it holds none (an empty file, comments only).
    static func load(_ text: String) throws(Failure) -> YAMLNode? {
        let bytes = Array(text.utf8)
        guard bytes.count <= maxBytes else { throw Failure(reason: "is larger than 64 KB") }
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw Failure(reason: "cannot be read (no memory)") }
        defer { yaml_parser_delete(&parser) }
        var document = yaml_document_t()
        let loaded = bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            return yaml_parser_load(&parser, &document)
        }
        guard loaded == 1 else {
            let problem = parser.problem.map { String(cString: $0) } ?? "a syntax error"
            throw Failure(reason: "is not YAML: \(problem) at line \(parser.problem_mark.line + 1)")
        }
        defer { yaml_document_delete(&document) }
        guard let root = yaml_document_get_root_node(&document) else { return nil }
        var budget = maxNodes
        return try node(root, in: &document, budget: &budget)
    }

    private static func node(
        _ pointer: UnsafeMutablePointer<yaml_node_t>, in document: inout yaml_document_t, budget: inout Int
    ) throws(Failure) -> YAMLNode {
        budget -= 1
        guard budget >= 0 else { throw Failure(reason: "unfolds into more than \(maxNodes) values") }
        let item = pointer.pointee
        switch item.type {
        case YAML_SCALAR_NODE:
            let scalar = item.data.scalar
            let text = String(
                decoding: UnsafeBufferPointer(start: scalar.value, count: Int(scalar.length)), as: UTF8.self)
            return .scalar(text, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE)
        case YAML_SEQUENCE_NODE:
            var items: [YAMLNode] = []
            var at = item.data.sequence.items.start
            while let index = at, index != item.data.sequence.items.top {
                guard let child = yaml_document_get_node(&document, index.pointee) else { break }
                items.append(try node(child, in: &document, budget: &budget))
                at = index + 1
            }
            return .sequence(items)
        case YAML_MAPPING_NODE:
            var pairs: [YAMLPair] = []
            var at = item.data.mapping.pairs.start
            while let pair = at, pair != item.data.mapping.pairs.top {
                guard let key = yaml_document_get_node(&document, pair.pointee.key),
                    let value = yaml_document_get_node(&document, pair.pointee.value)
                else { break }
                pairs.append(
                    YAMLPair(
                        key: try node(key, in: &document, budget: &budget),
                        value: try node(value, in: &document, budget: &budget)))
                at = pair + 1
            }
            return .mapping(pairs)
        default:
            return .scalar("", plain: true)
        }
    }
}

/// One key of a mapping and its value.
struct YAMLPair: Equatable {
    var key: YAMLNode
    var value: YAMLNode
}
