/// The one page `reveille-web` serves (Resources/page.html): markup, style and script together,
/// nothing fetched from elsewhere, so it works with no network. Sized for a 7" touchscreen at arm's length and for a
/// phone; the ring screen takes over whenever an alarm rings.
enum Page {
    static func html(csrf: String, access: String) -> String {
        template.replacing(
            "{{CONFIG}}", with: #"{"csrf":"\#(csrf)","access":"\#(access)"}"#)
    }

    /// Resources/page.html, embedded in the binary at build time (nothing is read at run time).
    static let template = String(decoding: PackageResources.page_html, as: UTF8.self)
}
