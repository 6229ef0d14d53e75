import ReveilleApps
import ReveilleCore
import ReveilleProtocol
import Testing

@testable import ReveilleConfig

@Suite struct AppPolicyFileTests {
    func parse(_ text: String) throws(ConfigError) -> AppPolicy {
        try AppPolicyFile.parse(TOMLDocument(path: "apps.toml", text: text))
    }

    func error(_ text: String) -> String {
        do {
            _ = try parse(text)
            return "no error"
        } catch {
            return error.description
        }
    }

    /// 20,000 tables naming one path: every problem's line is found in the table's own lines (it
    /// was found by reading the file from the top, for each: hours at this size, and the daemon
    /// stood still meanwhile), and the list stops at 50 and says how many more.
    @Test(.timeLimit(.minutes(1))) func aHugeFileOfRepeatsIsCheckedInLinearTimeWithItsLines() throws {
        let count = 20_000
        let text = (0..<count).map { "[[app]]\nname = \"app\($0)\"\npaths = [\"/bin/true\"]\n" }.joined(separator: "\n")
        let (policy, problems) = AppPolicyFile.check(try TOMLDocument(path: "apps.toml", text: text))
        #expect(policy.apps.map(\.name) == ["app0"])
        #expect(problems.count == AppPolicyFile.maxProblems + 1)
        #expect(problems.first?.description == "apps.toml:7: app #2 paths: /bin/true is already listed for \"app0\"")
        #expect(problems[49].line == 50 * 4 + 3)
        #expect(problems.last?.message == "and \(count - 1 - 50) more problems; mend these first, then check again")
        // A sub-table belongs to its app: a key after it is still found; the next app's is its own.
        let document = try TOMLDocument(
            path: "apps.toml",
            text: "[[app]]\nname = \"a\"\n[app.limits]\nx = 1\npaths = 2\n[other]\npaths = 3\n[[app]]\nname = \"b\"\n")
        #expect(document.line(of: "paths", inArray: "app", index: 0) == 5)
        #expect(document.line(of: "name", inArray: "app", index: 1) == 9)
        #expect(document.line(of: "paths", inArray: "app", index: 1) == 8)
        #expect(document.line(of: nil, inArray: "app", index: 2) == nil)
    }

    /// `school_days` and `days_off` beside the weekdays: read, written back as they were, and a key
    /// that is neither named with the ones there are.
    @Test func limitsBySchoolDaysAndDaysOffAreReadAndWrittenBack() throws {
        let text = """
            [[app]]
            name = "minecraft"
            paths = ["/usr/games/minecraft"]
            limit_minutes = { weekdays = 60, weekends = 120, days_off = 180 }

            [[app]]
            name = "tv"
            paths = ["/usr/bin/kodi"]
            limit_minutes = { school_days = 30, days_off = 90 }
            """
        let policy = try parse(text)
        let game = try #require(policy.app(named: "minecraft"))
        #expect(game.daysOff == 180 && game.schoolDays == nil && game.limits[.monday] == 60 && game.limits[.sunday] == 120)
        let tv = try #require(policy.app(named: "tv"))
        #expect(tv.schoolDays == 30 && tv.daysOff == 90 && tv.limits.isEmpty && tv.isConfigured)
        let written = AppPolicyText.render(policy)
        #expect(written.contains("limit_minutes = { weekdays = 60, weekends = 120, days_off = 180 }"), "\(written)")
        #expect(written.contains("limit_minutes = { school_days = 30, days_off = 90 }"), "\(written)")
        #expect(try parse(written) == policy, "written back as read")
        // One number for every day beside the calendar's is `daily`.
        var same = tv
        same.limits = Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, 60) })
        let sameText = AppPolicyText.render(AppPolicy(apps: [same]))
        #expect(sameText.contains("limit_minutes = { daily = 60, school_days = 30, days_off = 90 }"), "\(sameText)")
        #expect(try parse(sameText).apps == [same])
        // Through the page's and the CLI's setup too.
        #expect(try AppSetup(tv).rule() == tv)
        #expect(error("[[app]]\nname = \"x\"\npaths = [\"/x\"]\nlimit_minutes = { holidays = 30 }\n").contains(
            "\"holidays\" is not a day; use daily, weekdays, weekends, mon, tue, wed, thu, fri, sat, sun, school_days, days_off"))
    }

    @Test func appsWithEveryKindOfSetting() throws {
        let policy = try parse(
            """
            [[app]]
            name = "minecraft"
            paths = ["/usr/games/minecraft", "/opt/mc/launcher"]
            windows = { weekdays = ["15:00-20:00"], weekends = ["09:00-21:00"], fri = ["15:00-22:00", "23:00-01:00"] }
            limit_minutes = { daily = 90, weekdays = 60, wed = 30 }
            users = ["kid"]

            [[app]]
            name = "tv"
            paths = ["/usr/bin/kodi"]
            windows = ["18:00-20:00"]
            limit_minutes = 45
            enabled = false
            """)
        #expect(policy.apps.map(\.name) == ["minecraft", "tv"])
        let game = try #require(policy.app(forPath: "/opt/mc/launcher"))
        #expect(game.windows?[.monday] == [try TimeWindow.parse("15:00-20:00")])
        #expect(game.windows?[.friday]?.count == 2)
        #expect(game.windows?[.sunday] == [try TimeWindow.parse("09:00-21:00")])
        #expect(game.limits[.monday] == 60 && game.limits[.wednesday] == 30 && game.limits[.saturday] == 90)
        #expect(game.users == ["kid"] && game.enabled)
        let tv = try #require(policy.app(named: "tv"))
        #expect(tv.limits.count == 7 && tv.limits[.sunday] == 45 && !tv.enabled && tv.users.isEmpty)
        #expect(tv.windows?[.tuesday] == [try TimeWindow.parse("18:00-20:00")])
        #expect(try parse("") == AppPolicy())
    }

    @Test func everyErrorHasItsLineAndReason() {
        let base = "[[app]]\nname = \"tv\"\npaths = [\"/usr/bin/kodi\"]\n"
        #expect(
            error(base + "windows = [\"25:00-07:00\"]\n")
                == "apps.toml:4: app \"tv\" windows: window \"25:00-07:00\": hour 25 must be 0-23")
        #expect(
            error(base + "limit_minutes = 2000\n")
                == "apps.toml:4: app \"tv\" limit_minutes: 2000 is not allowed; use 0-480 minutes in steps of 5 (like 60 or 95)"
        )
        #expect(
            error(base + "limit_minutes = { someday = 3 }\n").hasPrefix(
                "apps.toml:4: app \"tv\" limit_minutes: \"someday\" is not a day; use daily, weekdays, weekends, mon"))
        #expect(
            error(base + "colour = \"red\"\n").hasPrefix(
                "apps.toml:4: app #1 colour: unknown setting; known here: name"))
        #expect(
            error("[[app]]\nname = \"tv\"\npaths = [\"kodi\"]\n")
                == "apps.toml:3: app \"tv\" paths: \"kodi\" is not an absolute path")
        #expect(error("[[app]]\npaths = [\"/a\"]\n") == "apps.toml:1: app #1: needs a name = \"...\"")
        #expect(
            error(base + "\n[[app]]\nname = \"tv\"\npaths = [\"/b\"]\n")
                == "apps.toml:6: app #2 name: another app is already called \"tv\"")
        #expect(
            error(base + "\n[[app]]\nname = \"radio\"\npaths = [\"/usr/bin/kodi\"]\n")
                == "apps.toml:7: app #2 paths: /usr/bin/kodi is already listed for \"tv\"")
        #expect(error(base + "enabled = \"yes\"\n") == "apps.toml:4: app \"tv\" enabled: must be true or false")
        #expect(error("apps = 3\n") == "apps.toml:1: apps: unknown setting; the file holds [[app]] tables")
        #expect(error("[[app]\nname = 3\n").hasPrefix("apps.toml:1: "))
    }

    @Test func theShippedExampleParses() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/apps.toml").path
        #expect(try AppPolicyFile.read(path: example).policy == AppPolicy())
        let text = try String(contentsOfFile: example, encoding: .utf8)
        let setting = try Regex(#"^# ([a-z_]+ = |\[\[)"#)
        let uncommented = text.split(separator: "\n").map { line in
            line.prefixMatch(of: setting) != nil ? String(line.dropFirst(2)) : String(line)
        }.joined(separator: "\n")
        let policy = try parse(uncommented)
        #expect(policy.apps.first?.limits[.saturday] == 120)
    }
}

import Foundation

/// Whom an app with no `users` limits: the people who log in, never root, a service account, an
/// account that cannot log in, `nobody` or the kiosk's own user.
@Suite struct LoginAccountsTests {
    @Test func aPersonHasALoginUIDAndALoginShellAndIsNotTheKiosk() {
        let range: (UInt32, UInt32) = (1000, 60000)
        func person(_ uid: UInt32, _ shell: String?, _ name: String = "lea", kiosk: String? = "reveille-kiosk") -> Bool {
            LoginAccounts.isPerson(uid: uid, shell: shell, name: name, range: range, kiosk: kiosk)
        }
        #expect(person(1000, "/bin/bash"))
        #expect(person(1001, ""), "an empty shell is /bin/sh")
        #expect(person(1002, nil), "an account the database does not describe, with a login UID")
        #expect(!person(0, "/bin/bash", "root"))
        #expect(!person(109, "/usr/sbin/nologin", "mosquitto"))
        #expect(!person(1003, "/usr/sbin/nologin", "backup-runner"), "a normal UID that cannot log in")
        #expect(!person(1004, "/bin/false", "git"))
        #expect(!person(65534, "/usr/sbin/nologin", "nobody"))
        #expect(!person(1005, "/bin/bash", "reveille-kiosk"), "the kiosk's own session")
        #expect(person(1005, "/bin/bash", "reveille-kiosk", kiosk: nil))
    }
}
