/// A setting's value as it travels: on the wire (its JSON type), in the store (an integer or text
/// column) and in a request that changes only what it names (`AlarmSpec.settings`).
public enum SettingValue: Hashable, Sendable {
    case int(Int)
    case bool(Bool)
    case text(String)
    case ints([Int])
}

extension SettingValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .int(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .text(let value): try container.encode(value)
        case .ints(let value): try container.encode(value)
        }
    }
}

/// A Swift type an alarm setting may have, and how it is a `SettingValue`.
public protocol SettingValueType: Codable, Hashable, Sendable {
    var setting: SettingValue { get }
    init?(setting: SettingValue)
}

extension Int: SettingValueType {
    public var setting: SettingValue { .int(self) }
    public init?(setting: SettingValue) {
        guard case .int(let value) = setting else { return nil }
        self = value
    }
}

extension Bool: SettingValueType {
    public var setting: SettingValue { .bool(self) }
    public init?(setting: SettingValue) {
        guard case .bool(let value) = setting else { return nil }
        self = value
    }
}

extension Array: SettingValueType where Element == Int {
    public var setting: SettingValue { .ints(self) }
    public init?(setting: SettingValue) {
        guard case .ints(let value) = setting else { return nil }
        self = value
    }
}

/// Enumerations travel by their name.
extension SettingValueType where Self: RawRepresentable, RawValue == String {
    public var setting: SettingValue { .text(rawValue) }
    public init?(setting: SettingValue) {
        guard case .text(let name) = setting else { return nil }
        self.init(rawValue: name)
    }
}

extension Challenge: SettingValueType {}
extension MathDifficulty: SettingValueType {}

/// One setting of an alarm, declared once (`Alarm.settings`): its name (the property, the wire
/// key and the store's column), its default (the `Alarm` property's), its range, its help text,
/// and how commitment judges a change of it. The protocol encodes and decodes it, the store adds
/// its column and reads and writes it, `AlarmSpec` carries it, the CLI's help and the commitment
/// rules read it: a new setting is its property and its entry, then its CLI option.
public struct AlarmSetting: Sendable {
    /// The `Alarm` property, the key on the wire and the store's column.
    public let key: String
    /// The CLI's option that sets it (`--volume`).
    public let option: String
    /// What it does, for `--help` and the page.
    public let help: String
    /// How commitment judges a change of it, in the README's words.
    public let treatment: String
    /// Its value in a new alarm (the property's default): the kind of value it takes, and the
    /// default of its store column.
    public let defaultValue: SettingValue
    /// The key path it is read through (`AlarmSpec`'s `spec.volume`).
    public let path: PartialKeyPath<Alarm> & Sendable
    /// Where and how the page's alarm sheet shows it (nil: the sheet does not, or as part of
    /// another field).
    public let sheet: SheetField?

    let read: @Sendable (Alarm) -> SettingValue
    let write: @Sendable (inout Alarm, SettingValue) -> Bool
    let decodeValue: @Sendable (KeyedDecodingContainer<SettingKey>) throws -> SettingValue?
    /// What is wrong with the alarm's value, in words that name the setting and its range.
    let problem: @Sendable (Alarm) -> String?
    /// What a change from `alarm` to `changed` does to the ring when it weakens it, else nil.
    public let weakens: @Sendable (_ changed: Alarm, _ alarm: Alarm) -> String?

    /// A setting of type `Value` at `path`.
    public init<Value: SettingValueType>(
        _ path: WritableKeyPath<Alarm, Value> & Sendable, key: String, option: String, help: String,
        treatment: String, sheet: SheetField? = nil, problem: @escaping @Sendable (Value) -> String? = { _ in nil },
        weakens: @escaping @Sendable (_ changed: Alarm, _ alarm: Alarm) -> String? = { _, _ in nil }
    ) {
        self.sheet = sheet
        self.key = key
        self.option = option
        self.help = help
        self.treatment = treatment
        self.path = path
        self.weakens = weakens
        defaultValue = Alarm.blank[keyPath: path].setting
        read = { $0[keyPath: path].setting }
        write = { alarm, value in
            guard let typed = Value(setting: value) else { return false }
            alarm[keyPath: path] = typed
            return true
        }
        decodeValue = { container in
            try container.decodeIfPresent(Value.self, forKey: SettingKey(key))?.setting
        }
        self.problem = { problem($0[keyPath: path]) }
    }

    /// The alarm's value of this setting.
    public func value(of alarm: Alarm) -> SettingValue { read(alarm) }

    /// Sets `value` on `alarm`; false when it is not this setting's kind of value.
    public func set(_ value: SettingValue, on alarm: inout Alarm) -> Bool { write(&alarm, value) }

    /// This setting's value in `container`, if it is there (a wrong type throws).
    public func decode(from container: KeyedDecodingContainer<SettingKey>) throws -> SettingValue? {
        try decodeValue(container)
    }
}

/// A setting's key in a keyed container: the wire's JSON object.
public struct SettingKey: CodingKey, Hashable, Sendable {
    public let stringValue: String
    public var intValue: Int? { nil }

    public init(_ name: String) { stringValue = name }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}

extension Alarm {
    /// The setting at `path`, if it is one.
    public static func setting(at path: PartialKeyPath<Alarm>) -> AlarmSetting? {
        settings.first { $0.path == path }
    }

    /// The setting named `key`.
    public static func setting(named key: String) -> AlarmSetting? {
        settings.first { $0.key == key }
    }

    /// An alarm with every default: what a setting's default is read from.
    static let blank = Alarm(id: 0, time: LocalTime(secondsOfDay: 0)!, repeats: .weekly(.daily))

    /// Each setting's value in this alarm, by key.
    public var settingValues: [String: SettingValue] {
        Dictionary(uniqueKeysWithValues: Alarm.settings.map { ($0.key, $0.value(of: self)) })
    }
}

/// Settings' values by key, coded through `Alarm.settings`: each under its key, as its type; a key
/// no setting has is left out, and one missing is simply absent.
public struct SettingValues: Codable, Hashable, Sendable {
    public var values: [String: SettingValue]

    public init(_ values: [String: SettingValue]) { self.values = values }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SettingKey.self)
        for setting in Alarm.settings {
            if let value = values[setting.key] { try container.encode(value, forKey: SettingKey(setting.key)) }
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: SettingKey.self)
        values = [:]
        for setting in Alarm.settings {
            if let value = try setting.decode(from: container) { values[setting.key] = value }
        }
    }
}
