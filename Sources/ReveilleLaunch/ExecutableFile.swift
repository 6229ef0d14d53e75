import CGcrypt
import Glibc
import ReveilleApps
import ReveilleSystem
import ReveilleCore

/// Reads what the guard needs to know about an open file: its stamp (fstat), its kind (the first
/// bytes: an ELF's program headers, or `#!`) and, when asked, its content's SHA-256 (libgcrypt).
/// Works on a descriptor, so the answer is about the file the kernel is executing, never about
/// whatever a path names by now.
public enum ExecutableFile {
    /// fstat: nil when it fails, or for anything but a regular file.
    public static func stamp(_ fd: Int32) -> FileStamp? {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileStamp(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
    }

    /// The kind, from the file's first bytes (one pread, two for an ELF whose program headers lie
    /// further in).
    public static func kind(_ fd: Int32) -> ExecutableKind {
        var head = [UInt8](repeating: 0, count: 1024)
        let count = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 1024, 0) }
        guard count >= 4 else { return .other }
        if head[0] == UInt8(ascii: "#"), head[1] == UInt8(ascii: "!") { return .script }
        guard head[0] == 0x7F, head[1] == UInt8(ascii: "E"), head[2] == UInt8(ascii: "L"), head[3] == UInt8(ascii: "F"),
            count >= 52
        else { return .other }
        return hasInterpreter(fd, head: Array(head[0..<count])) ? .dynamicProgram : .staticProgram
    }

    /// Whether an ELF file has a PT_INTERP program header (ELF32 or ELF64, either byte order).
    static func hasInterpreter(_ fd: Int32, head: [UInt8]) -> Bool {
        let is64 = head[4] == 2
        let little = head[5] != 2
        func integer(_ bytes: ArraySlice<UInt8>) -> UInt64 {
            let ordered = little ? Array(bytes.reversed()) : Array(bytes)
            return ordered.reduce(0) { $0 << 8 | UInt64($1) }
        }
        func field(_ offset: Int, _ width: Int) -> UInt64? {
            offset + width <= head.count ? integer(head[offset..<(offset + width)]) : nil
        }
        guard let offset = is64 ? field(32, 8) : field(28, 4),
            let entrySize = is64 ? field(54, 2) : field(42, 2),
            let entries = is64 ? field(56, 2) : field(44, 2),
            entrySize >= 4, entries > 0, entries < 4096, offset < (1 << 32)
        else { return false }
        let length = Int(entrySize) * Int(entries)
        var table: [UInt8]
        if Int(offset) + length <= head.count {
            table = Array(head[Int(offset)..<(Int(offset) + length)])
        } else {
            table = [UInt8](repeating: 0, count: length)
            let read = table.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, off_t(offset)) }
            guard read == length else { return false }
        }
        let ptInterp: UInt64 = 3
        return (0..<Int(entries)).contains { index in
            let start = index * Int(entrySize)
            return integer(table[start..<(start + 4)]) == ptInterp
        }
    }

    /// The content's SHA-256 and size, read from the start of the file; nil when reading fails.
    public static func content(_ fd: Int32, size: Int64) -> ContentID? {
        _ = started
        var handle: gcry_md_hd_t?
        guard gcry_md_open(&handle, Int32(GCRY_MD_SHA256.rawValue), 0) == 0, let handle else { return nil }
        defer { gcry_md_close(handle) }
        let chunk = 256 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        var offset: Int64 = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, chunk, off_t(offset)) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            buffer.withUnsafeBytes { gcry_md_write(handle, $0.baseAddress, count) }
            offset += Int64(count)
        }
        // The file changed size while it was read: no answer is better than a wrong one.
        guard offset == size, let digest = gcry_md_read(handle, Int32(GCRY_MD_SHA256.rawValue)) else { return nil }
        return ContentID(size: size, sha256: hex(UnsafeBufferPointer(start: digest, count: 32)))
    }

    /// The SHA-256 of `bytes`, as lowercase hex (web device tokens are kept by it).
    public static func sha256(_ bytes: [UInt8]) -> String {
        _ = started
        var digest = [UInt8](repeating: 0, count: 32)
        gcry_md_hash_buffer(Int32(GCRY_MD_SHA256.rawValue), &digest, bytes, bytes.count)
        return digest.withUnsafeBufferPointer(hex)
    }

    private static func hex(_ digest: UnsafeBufferPointer<UInt8>) -> String {
        digest.map { String($0 >> 4, radix: 16) + String($0 & 0xF, radix: 16) }.joined()
    }

    /// Opens `path` (following symlinks) for reading, for the listed executables when the policy
    /// loads.
    public static func open(_ path: String) throws(SystemCallError) -> Descriptor {
        try Descriptor.open("open", path) { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
    }

    /// libgcrypt's initialization, once per process, before its first use.
    private static let started: Bool = rv_gcrypt_start() == 0
}

/// The dynamic loaders on this machine (ld-linux and friends, every architecture installed),
/// resolved through their symlinks, each once.
public enum DynamicLoaders {
    static let patterns = [
        "/lib*/ld-linux*.so*", "/lib/*/ld-linux*.so*", "/usr/lib*/ld-linux*.so*", "/usr/lib/*/ld-linux*.so*",
        "/lib*/ld64.so*", "/lib/ld-musl-*.so*", "/usr/lib/ld-musl-*.so*",
    ]

    public static func paths() -> [String] {
        var found: [String] = []
        for pattern in patterns {
            var matches = glob_t()
            defer { globfree(&matches) }
            guard glob(pattern, 0, nil, &matches) == 0 else { continue }
            for index in 0..<Int(matches.gl_pathc) {
                guard let match = matches.gl_pathv[index], let real = realpath(match, nil) else { continue }
                let path = String(cString: real)
                free(real)
                if !found.contains(path) { found.append(path) }
            }
        }
        return found
    }
}
