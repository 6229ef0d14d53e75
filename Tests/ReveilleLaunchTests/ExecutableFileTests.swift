import Foundation
import ReveilleApps
import ReveilleCore
import ReveilleLaunch
import Testing

/// What the guard reads from a file: stamp, kind, SHA-256 (libgcrypt), and the mount table.
@Suite struct ExecutableFileTests {
    func withFile<T>(_ path: String, _ body: (Int32) throws -> T) throws -> T {
        try ExecutableFile.open(path).withRaw(body)
    }

    @Test func theKindOfAProgramTheLoaderAndAScript() throws {
        #expect(try withFile("/usr/bin/sleep") { ExecutableFile.kind($0) } == .dynamicProgram)
        let loader = try #require(DynamicLoaders.paths().first, "no dynamic loader found")
        #expect(try withFile(loader) { ExecutableFile.kind($0) } == .staticProgram)
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("kind-\(UUID().uuidString).sh").path
        try "#!/bin/sh\necho hi\n".write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        #expect(try withFile(script) { ExecutableFile.kind($0) } == .script)
        #expect(try withFile("/etc/hostname") { ExecutableFile.kind($0) } == .other)
    }

    /// The loader this very process runs under (its PT_INTERP, mapped into it by the kernel) is
    /// among those the guard finds: the list is read from the system, so the same holds for
    /// /lib/ld-linux-aarch64.so.1 on an arm64 clock as for ld-linux-x86-64.so.2 here.
    @Test func theLoaderOfThisArchitectureIsFoundNotHardCoded() throws {
        // Read to the end: /proc files have no size to read by.
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps"))
        defer { try? handle.close() }
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        let mapped = Set(
            maps.split(separator: "\n").compactMap { line in line.split(separator: " ").last.map(String.init) }
                .filter { $0.hasPrefix("/") })
        let loaders = DynamicLoaders.paths()
        let ours = mapped.filter { path in
            let name = (path as NSString).lastPathComponent
            return name.hasPrefix("ld-linux") || name.hasPrefix("ld64.so") || name.hasPrefix("ld-musl")
                || loaders.contains(path)
        }
        #expect(!ours.isEmpty, "no loader mapped into this process: \(mapped.sorted())")
        for path in ours {
            let real = try #require(
                realpath(path, nil).map { pointer in
                    defer { free(pointer) }
                    return String(cString: pointer)
                })
            #expect(loaders.contains(real), "\(real) not in \(loaders)")
        }
    }

    @Test func theContentMatchesSha256sum() throws {
        let path = "/usr/bin/sleep"
        let content = try withFile(path) { fd -> ContentID? in
            guard let stamp = ExecutableFile.stamp(fd) else { return nil }
            return ExecutableFile.content(fd, size: stamp.size)
        }
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        tool.arguments = [path]
        let pipe = Pipe()
        tool.standardOutput = pipe
        try tool.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        tool.waitUntilExit()
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(content == ContentID(size: Int64(size ?? -1), sha256: String(output.prefix(64))))
        // A stated size that is not the file's gives no answer rather than a wrong one.
        #expect(try withFile(path) { ExecutableFile.content($0, size: 3) } == nil)
    }

    @Test func aStampChangesWhenTheFileIsWritten() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stamp-\(UUID().uuidString)").path
        try "one".write(toFile: path, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let before = try withFile(path) { ExecutableFile.stamp($0) }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Data("two".utf8))  // same size, same inode
        try handle.close()
        let after = try withFile(path) { ExecutableFile.stamp($0) }
        #expect(before != nil && after != nil && before != after)
        #expect(before?.inode == after?.inode && before?.size == after?.size)
        #expect(try withFile("/tmp") { ExecutableFile.stamp($0) } == nil, "a folder has no stamp")
    }

    @Test func theMountTableAndWhereProgramsCanRun() {
        let text = """
            22 27 0:21 / /proc rw,relatime - proc proc rw
            27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
            25 24 0:23 / /dev/shm rw,nosuid,nodev,noexec - tmpfs tmpfs rw
            40 27 254:0 /home /home rw,relatime - ext4 /dev/vda rw
            41 27 8:1 / /media/usb\\040stick rw,nosuid - vfat /dev/sda1 rw
            42 27 0:40 / /tmp rw,nosuid,nodev - tmpfs tmpfs rw
            """
        let mounts = Mounts.parse(text)
        #expect(mounts.count == 6)
        #expect(mounts[4].mountPoint == "/media/usb stick" && mounts[4].type == "vfat")
        #expect(mounts[2].noexec && !mounts[1].noexec)
        // One per file system (the bind of /home is the root's), nothing noexec, nothing of the kernel's.
        #expect(Mounts.executable(mounts).map(\.mountPoint) == ["/", "/media/usb stick", "/tmp"])
        #expect(Mounts.mount(of: "/dev/shm/x", in: mounts)?.mountPoint == "/dev/shm")
        #expect(Mounts.mount(of: "/home", in: mounts)?.mountPoint == "/home")
        #expect(Mounts.mount(of: "/homework", in: mounts)?.mountPoint == "/")
        let own = Mounts.read()
        #expect(Mounts.device(of: "/") == Mounts.mount(of: "/", in: own)?.device, "stat and mountinfo agree")
    }
}
