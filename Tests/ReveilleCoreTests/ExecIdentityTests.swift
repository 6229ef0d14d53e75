import ReveilleApps
import ReveilleCore
import Testing

/// What the app guard knows a file by, and how it tells a program started through the loader
/// (docs/guide/apps.md, "What counts as the app").
@Suite struct ExecIdentityTests {
    let game = ContentID(size: 1000, sha256: String(repeating: "a", count: 64))
    let loader = ContentID(size: 2000, sha256: String(repeating: "b", count: 64))

    var catalog: ExecCatalog {
        var catalog = ExecCatalog()
        catalog.add(game, app: "game")
        catalog.addLoader(loader)
        return catalog
    }

    @Test func aFileIsTheAppByItsContentAndOnlyItsSizeIsWorthHashing() {
        #expect(catalog.mayMatch(size: 1000) && catalog.mayMatch(size: 2000))
        #expect(!catalog.mayMatch(size: 1001))
        #expect(catalog.verdict(for: game, kind: .dynamicProgram).app == "game")
        // Same size, other content: not the game.
        let lookalike = ContentID(size: 1000, sha256: String(repeating: "c", count: 64))
        #expect(catalog.verdict(for: lookalike, kind: .dynamicProgram).app == nil)
        #expect(catalog.verdict(for: nil, kind: .other) == ExecVerdict(app: nil, isLoader: false, kind: .other))
        #expect(catalog.verdict(for: loader, kind: .staticProgram).isLoader)
    }

    @Test func twoListingsOfOneContentKeepTheFirstApp() {
        var catalog = self.catalog
        catalog.add(game, app: "other")
        #expect(catalog.verdict(for: game, kind: .dynamicProgram).app == "game")
    }

    let program = ExecVerdict(app: "game", isLoader: false, kind: .dynamicProgram)
    let ld = ExecVerdict(app: nil, isLoader: true, kind: .staticProgram)

    /// Feeds exec events in order; for each, whether it was the loader run directly.
    func directLoaderRuns(_ events: [(Int32, ExecVerdict)], in sequence: inout ExecSequence) -> [Bool] {
        events.map { sequence.exec(pid: $0.0, $0.1) }
    }

    @Test func theLoaderAfterADynamicProgramIsItsInterpreter() {
        var sequence = ExecSequence()
        // A normal start (the program, then its loader); then the same process execs the loader
        // directly; another pid's program does not vouch for a third pid's loader run.
        let runs = directLoaderRuns(
            [(10, program), (10, ld), (10, ld), (11, program), (12, ld), (11, ld)], in: &sequence)
        #expect(runs == [false, false, true, false, true, false])
    }

    @Test func aScriptOrStaticProgramBeforeTheLoaderDoesNotMakeItAnInterpreter() {
        var sequence = ExecSequence()
        let script = ExecVerdict(app: nil, isLoader: false, kind: .script)
        let staticShell = ExecVerdict(app: nil, isLoader: false, kind: .staticProgram)
        let sh = ExecVerdict(app: nil, isLoader: false, kind: .dynamicProgram)
        // `#!/lib64/ld-linux-x86-64.so.2 /path/to/game` in a script; a static shell that execs the
        // loader; `sh game.sh` (sh, then its loader).
        let runs = directLoaderRuns(
            [(20, script), (20, ld), (21, staticShell), (21, ld), (22, sh), (22, ld)], in: &sequence)
        #expect(runs == [false, true, false, true, false, false])
    }

    @Test func onOverlayfsTheLoaderReportedTwiceIsOneInterpreterButACopyIsNot() {
        var sequence = ExecSequence()
        func stamp(_ device: UInt64, _ inode: UInt64) -> FileStamp {
            FileStamp(device: device, inode: inode, size: 210_968, modified: 1_700_000_000_000_000_000, changed: 1)
        }
        let overlay = stamp(41, 6_727_791)
        let beneath = stamp(65_024, 6_727_791)
        // Each entry: whether the event was judged as expected.
        var runs: [Bool] = []
        // A program started in a chroot on overlayfs: program twice, loader twice (overlay, layer).
        runs.append(!sequence.exec(pid: 30, program, file: stamp(41, 6_726_389)))
        runs.append(!sequence.exec(pid: 30, program, file: stamp(65_024, 6_726_389)))
        runs.append(!sequence.exec(pid: 30, ld, file: overlay))
        runs.append(!sequence.exec(pid: 30, ld, file: beneath))
        // The loader run directly in that chroot: its first event already says so.
        runs.append(sequence.exec(pid: 31, ld, file: overlay))
        // After a normal start, the same process running a copy of the loader (another inode, on
        // another device, even with the same size and time) is a direct run.
        runs.append(!sequence.exec(pid: 32, program, file: stamp(65_024, 1)))
        runs.append(!sequence.exec(pid: 32, ld, file: stamp(65_024, 332_717)))
        runs.append(sequence.exec(pid: 32, ld, file: stamp(24, 99)))
        // Nor does the same loader again on the same device count as the overlay's second report.
        runs.append(!sequence.exec(pid: 33, program, file: stamp(65_024, 1)))
        runs.append(!sequence.exec(pid: 33, ld, file: stamp(65_024, 332_717)))
        runs.append(sequence.exec(pid: 33, ld, file: stamp(65_024, 332_717)))
        #expect(runs == Array(repeating: true, count: 11), "\(runs)")
    }

    @Test func aLoaderAloneMayBeAnExecBegunBeforeTheGuardWatchedOnlyJustThenAndOnlyForAnOlderProcess() {
        func begun(_ started: Double?, _ grew: Double?, _ now: Double) -> Bool {
            ExecSequence.mayHaveBegunUnwatched(processStarted: started, watchGrewAt: grew, now: now)
        }
        // A process that existed when the marks were placed, its loader seen just after.
        #expect(begun(100, 100.5, 100.6))
        #expect(begun(100.5, 100.5, 102.5), "the same tick, and the window's end")
        // Too late for one exec's two halves; a process started after the marks; never marked more.
        #expect(!begun(100, 100.5, 102.6))
        #expect(!begun(100.51, 100.5, 100.6))
        #expect(!begun(100, nil, 100.6))
        // A start that cannot be read (the process is gone), or a clock read before the marks.
        #expect(!begun(nil, 100.5, 100.6))
        #expect(!begun(100, 100.5, 100.4))
    }

    @Test func theSequenceForgetsWhenItFillsUp() {
        var sequence = ExecSequence()
        let many = (0..<Int32(ExecSequence.limit + 10)).map { ($0, program) }
        _ = directLoaderRuns(many, in: &sequence)
        // The latest pids are still remembered; forgotten ones err on the side of refusing.
        let runs = directLoaderRuns([(Int32(ExecSequence.limit + 9), ld), (0, ld)], in: &sequence)
        #expect(runs == [false, true])
    }

    @Test func whoTheLoaderRouteIsClosedTo() {
        let policy = AppPolicy(apps: [
            AppRule(name: "game", paths: ["/g"], users: ["kid"]),
            AppRule(name: "old", paths: ["/o"], enabled: false),
        ])
        #expect(policy.limits(user: "kid"))
        #expect(!policy.limits(user: "parent"), "a disabled app for everyone limits nobody")
        #expect(AppPolicy(apps: [AppRule(name: "tv", paths: ["/t"])]).limits(user: "parent"))
        #expect(!AppPolicy().limits(user: "kid"))
    }
}
