import Glibc

/// Where a phone on the home network opens the page, as the first boot's screen shows it: the
/// clock's name by multicast DNS (`NAME.local`, which the image announces) and each IPv4 address
/// of an interface that is up, at the port the page is served on. None while the page is served
/// on loopback only (a phone could not reach it).
enum PhoneAddresses {
    static func current(listening host: String, port: Int) -> [String] {
        if ["127.0.0.1", "::1", "localhost"].contains(host) || host.hasPrefix("127.") { return [] }
        let specific = host != "0.0.0.0" && host != "::" && !host.isEmpty
        if specific { return [url(host, port)] }
        var names: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        if gethostname(&buffer, buffer.count - 1) == 0 {
            let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !name.isEmpty, name != "localhost", name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) {
                names.append(url(name + ".local", port))
            }
        }
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return names }
        defer { freeifaddrs(list) }
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let item = entry {
            defer { entry = item.pointee.ifa_next }
            let flags = Int32(item.pointee.ifa_flags)
            guard let address = item.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let found = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var raw = inet.pointee.sin_addr
                return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count)) != nil
            }
            if found {
                names.append(url(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port))
            }
        }
        return names
    }

    private static func url(_ host: String, _ port: Int) -> String {
        "http://" + (host.contains(":") ? "[\(host)]" : host) + (port == 80 ? "" : ":\(port)") + "/"
    }
}
