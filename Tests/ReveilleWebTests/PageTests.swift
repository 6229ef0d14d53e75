import Foundation
import ReveilleCore
import Testing

@testable import ReveilleWeb

/// The page's three files, put together into the one document served.
@Suite struct PageAssemblyTests {
    @Test func theStyleAndTheScriptGoIntoTheMarkupAndNoPlaceholderIsLeft() {
        let page = Page.html(csrf: "c0ffee", access: "kiosk", settings: #""settings":{},"defaults":{}"#)
        #expect(!page.contains("{{"), "a placeholder was left in the page")
        #expect(page.contains("<style>\n/*") && page.contains("</style>"))
        #expect(page.contains("<script>\n\"use strict\";") && page.hasSuffix("</script>\n</body>\n</html>\n"))
        #expect(page.contains(#"{"csrf":"c0ffee","access":"kiosk","settings":{},"defaults":{}}"#))
        #expect(page.utf8.count < 150 * 1024, "the page weighs \(page.utf8.count) bytes")
        #expect(Page.assemble(html: "a\n{{STYLE}}\nb\n{{SCRIPT}}\nc\n", css: "S\n", js: "J\n") == "a\nS\nb\nJ\nc\n")
    }
}

/// The alarm sheet comes from the settings' own declarations: every setting is on it (the later
/// snooze lengths inside the first's field), each in a part the page shows, with a control the
/// page builds, so a new setting needs no page edit.
@Suite struct AlarmSheetTests {
    struct Served: Decodable {
        struct Part: Decodable { let group: String; let title: String }
        struct Field: Decodable {
            struct Control: Decodable { let kind: String; let later: String? }
            let key: String
            let group: String
            let label: String
            let control: Control
            let row: String?
        }
        let parts: [Part]
        let fields: [Field]
    }

    func served() throws -> Served {
        let text = "{" + Page.settings(newAlarm: [:]) + "}"
        struct Config: Decodable { let sheet: Served }
        return try JSONDecoder().decode(Config.self, from: Data(text.utf8)).sheet
    }

    @Test func everySettingIsOnTheSheetInAPartWithAControlThePageBuilds() throws {
        let sheet = try served()
        let shown = Set(sheet.fields.map(\.key) + sheet.fields.compactMap(\.control.later))
        #expect(shown == Set(Alarm.settings.map(\.key)), "settings missing from the sheet")
        let parts = Set(sheet.parts.map(\.group))
        let script = String(decoding: PackageResources.page_js, as: UTF8.self)
        for field in sheet.fields {
            #expect(parts.contains(field.group), "\(field.key) is in no part the page shows")
            #expect(!field.label.isEmpty, "\(field.key) has no words")
            #expect(
                script.contains("case \"\(field.control.kind)\""), "the page builds no \(field.control.kind) control")
            if let row = field.row {
                let joined = try #require(
                    sheet.fields.first { $0.key == row }, "\(field.key) joins a row no field names")
                #expect(joined.group == field.group, "\(field.key) joins a row of another part")
            }
        }
        #expect(sheet.parts.map(\.title).filter { !$0.isEmpty }.count == sheet.parts.count - 1)
    }
}
