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
