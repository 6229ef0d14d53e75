import ReveilleApps
import ReveilleCore
import Testing

@testable import ReveilleConfig

/// The policy as text and back, and how a hand edit of apps.toml joins the policy in force
/// (docs/guide/apps.md, "Where the app policy lives").
@Suite struct AppPolicyMergeTests {
    func parse(_ text: String) throws -> AppPolicy {
        try AppPolicyFile.parse(TOMLDocument(path: "apps.toml", text: text))
    }

    func app(_ name: String, limit: Int = 60, path: String? = nil) -> AppRule {
        AppRule(
            name: name, paths: [path ?? "/usr/games/\(name)"],
            limits: Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, limit) }))
    }

    @Test func whatIsWrittenReadsBackTheSame() throws {
        var game = app("game")
        game.category = .reward
        game.windows = Dictionary(
            uniqueKeysWithValues: Weekday.allCases.map { ($0, [try! TimeWindow.parse("15:00-20:00")]) })
        game.windows![.saturday] = [try TimeWindow.parse("09:00-12:00"), try TimeWindow.parse("14:00-20:00")]
        game.windows![.sunday] = game.windows![.saturday]
        game.limits[.friday] = 90
        game.users = ["kid", "o\"dd"]
        var maths = app("maths", limit: 30)
        maths.category = .learning
        maths.enabled = false
        maths.limits[.sunday] = nil
        let policy = AppPolicy(apps: [game, maths, AppRule(name: "listed", paths: ["/opt/a b/c\\d"])])
        let text = AppPolicyText.render(policy)
        #expect(try parse(text) == policy)
        #expect(text.contains(#"windows = { weekdays = ["15:00-20:00"], weekends = ["09:00-12:00", "14:00-20:00"] }"#))
        #expect(text.contains("limit_minutes = { sat = 60, mon = 60") == false)
        #expect(text.contains(#"category = "learning""#) && text.contains("enabled = false"))
    }

    @Test func aCategoryAndTheLimitsRulesAreChecked() {
        func error(_ body: String) -> String {
            do {
                _ = try parse("[[app]]\nname = \"tv\"\npaths = [\"/usr/bin/tv\"]\n" + body)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        #expect(
            error("limit_minutes = 7\n")
                == "apps.toml:4: app \"tv\" limit_minutes: 7 is not allowed; use 0-480 minutes in steps of 5 (like 60 or 95)"
        )
        #expect(
            error("limit_minutes = { weekends = 500 }\n")
                == "apps.toml:4: app \"tv\" limit_minutes: 500 is not allowed; use 0-480 minutes in steps of 5 (like 60 or 95)"
        )
        #expect(
            error("category = \"learning\"\nwindows = [\"07:00-20:00\"]\n")
                == "apps.toml:5: app \"tv\" limit_minutes: a learning app needs its daily limits (limit_minutes); it gets no defaults"
                || error("category = \"learning\"\nwindows = [\"07:00-20:00\"]\n").contains(
                    "a learning app needs its daily limits")
        )
        #expect(
            error("category = \"games\"\n")
                == "apps.toml:4: app \"tv\" category: must be \"learning\" or \"reward\" (or left out)")
        #expect(error("category = \"reward\"\nlimit_minutes = 60\n") == "no error")
    }

    @Test func aHandEditOfAnotherAppJoinsAPageEdit() {
        let base = AppPolicy(apps: [app("game"), app("tv")])
        let current = AppPolicy(apps: [app("game", limit: 90), app("tv")])  // the page gave game 90
        let file = AppPolicy(apps: [app("game"), app("tv", limit: 30), app("chess")])  // root: tv 30, chess added
        let merged = AppPolicyMerge.merge(base: base, file: file, current: current)
        #expect(merged.policy == AppPolicy(apps: [app("game", limit: 90), app("tv", limit: 30), app("chess")]))
        #expect(merged.conflicts.isEmpty)
        #expect(merged.base == file)
        // Merging the same file again changes nothing.
        let again = AppPolicyMerge.merge(base: merged.base, file: file, current: merged.policy)
        #expect(again.policy == merged.policy && again.conflicts.isEmpty)
    }

    @Test func anAppChangedInBothKeepsWhatIsInForceAndSaysSoUntilTheyAgree() {
        let base = AppPolicy(apps: [app("game")])
        let current = AppPolicy(apps: [app("game", limit: 90)])
        let file = AppPolicy(apps: [app("game", limit: 30)])
        let merged = AppPolicyMerge.merge(base: base, file: file, current: current)
        #expect(merged.policy == current)
        #expect(merged.conflicts.count == 1)
        #expect(merged.conflicts.first?.hasPrefix("apps.toml's change to \"game\" was not applied") == true)
        #expect(merged.base == base, "the file's change is not forgotten")
        #expect(AppPolicyMerge.merge(base: merged.base, file: file, current: merged.policy).conflicts.count == 1)
        // The file made to agree (apps export): no conflict, and the file is the new base.
        let agreed = AppPolicyMerge.merge(base: merged.base, file: current, current: current)
        #expect(agreed.conflicts.isEmpty && agreed.policy == current && agreed.base == current)
    }

    @Test func removalsOnEitherSideStand() {
        let base = AppPolicy(apps: [app("game"), app("tv")])
        // The page removed tv; the file still lists it as it was: it stays removed.
        let pageRemoved = AppPolicyMerge.merge(base: base, file: base, current: AppPolicy(apps: [app("game")]))
        #expect(pageRemoved.policy.apps.map(\.name) == ["game"])
        // Root removed game from the file: it goes.
        let fileRemoved = AppPolicyMerge.merge(base: base, file: AppPolicy(apps: [app("tv")]), current: base)
        #expect(fileRemoved.policy.apps.map(\.name) == ["tv"])
    }

    @Test func anExecutableTheFileGivesToASecondAppIsAConflict() {
        let current = AppPolicy(apps: [app("game", path: "/usr/games/x")])
        let file = AppPolicy(apps: [app("other", path: "/usr/games/x")])
        let merged = AppPolicyMerge.merge(base: AppPolicy(), file: file, current: current)
        #expect(merged.policy == current)
        #expect(
            merged.conflicts == [
                "apps.toml's change to \"other\" was not applied: /usr/games/x is already listed for \"game\""
            ])
    }
}
