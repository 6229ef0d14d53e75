/// A calendar's address as shown to people and written to logs: a web address's credentials
/// (`https://user:secret@host/…`) are never shown back, to anyone; what is kept in the state is
/// the address as given, for the fetcher.
public enum CalendarAddress {
    /// `https://user:secret@host/cal.ics` → `https://…@host/cal.ics`; anything else as it is.
    public static func shown(_ source: String) -> String {
        guard source.hasPrefix("http://") || source.hasPrefix("https://"),
            let slashes = source.firstIndex(of: "/").map({ source.index($0, offsetBy: 2) })
        else { return source }
        let rest = source[slashes...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return source }
        return String(source[..<slashes]) + "…" + String(rest[at...])
    }
}
