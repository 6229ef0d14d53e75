import FoundationEssentials
import ReveilleCore

/// The one page `reveille-web` serves, from three files: the markup (Resources/page.html), its
/// style (page.css) and its script (page.js), put together once into one document, nothing
/// fetched from elsewhere, so it works with no network. Sized for a 7" touchscreen at arm's length and for a
/// phone; the ring screen takes over whenever an alarm rings.
enum Page {
    static func html(csrf: String, access: String, settings: String) -> String {
        template.replacing(
            "{{CONFIG}}", with: #"{"csrf":"\#(csrf)","access":"\#(access)",\#(settings)}"#)
    }

    /// The alarm sheet's part of the page's configuration, read from the one declaration of an
    /// alarm's settings (`Alarm.settings`): `"settings"`, each setting's help by key, and
    /// `"defaults"`, a new alarm's values (the declared ones, with `newAlarm`'s over them: the
    /// `[audio]` volume and fade-in). Made once, when the server starts.
    static func settings(newAlarm: [String: SettingValue]) -> String {
        let help = Dictionary(uniqueKeysWithValues: Alarm.settings.map { ($0.key, $0.help) })
        var defaults = Dictionary(uniqueKeysWithValues: Alarm.settings.map { ($0.key, $0.defaultValue) })
        defaults.merge(newAlarm) { $1 }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let helpText = (try? encoder.encode(help)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        let defaultText =
            (try? encoder.encode(SettingValues(defaults))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        let sheetText = (try? encoder.encode(Sheet())).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        // Inside a <script> element: "</" would end it.
        return #""settings":\#(helpText),"defaults":\#(defaultText),"sheet":\#(sheetText)"#.replacing(
            "</", with: "<\\/")
    }

    /// The alarm sheet as the settings declare it (`AlarmSetting.sheet`): its parts in order, with
    /// their titles, and each field with its setting's key. The page builds the sheet from it.
    struct Sheet: Encodable {
        struct Part: Encodable {
            let group: String
            let title: String
        }
        struct Field: Encodable {
            let key: String
            let field: SheetField

            func encode(to encoder: any Encoder) throws {
                try field.encode(to: encoder)
                var container = encoder.container(keyedBy: SettingKey.self)
                try container.encode(key, forKey: SettingKey("key"))
            }
        }
        let parts = SheetField.Group.allCases.map { Part(group: $0.rawValue, title: $0.title) }
        let fields = Alarm.settings.compactMap { setting in setting.sheet.map { Field(key: setting.key, field: $0) } }
    }

    /// The three files, embedded in the binary at build time (nothing is read at run time), the
    /// style and the script in the markup's `{{STYLE}}` and `{{SCRIPT}}` lines.
    static let template = assemble(
        html: String(decoding: PackageResources.page_html, as: UTF8.self),
        css: String(decoding: PackageResources.page_css, as: UTF8.self),
        js: String(decoding: PackageResources.page_js, as: UTF8.self))

    static func assemble(html: String, css: String, js: String) -> String {
        html.replacing("{{STYLE}}\n", with: css).replacing("{{SCRIPT}}\n", with: js)
    }
}
