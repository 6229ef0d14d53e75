import ArgumentParser
import CWebShims
import NIOCore
import NIOPosix
import ReveilleWeb

/// Swift's default executor (libdispatch) keeps a once-a-second timer while it has worker threads:
/// 60 wake-ups a minute on an idle clock. NIO's event loops run the tasks instead, and sleep.
func runTasksOnEventLoops() -> Bool {
    if NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() { return true }
    // The runtime linked in statically: the same hook, found by the linker instead of dlsym.
    typealias EnqueueHook = @convention(thin) (UnownedJob, @convention(thin) (UnownedJob) -> Void) -> Void
    let hook: EnqueueHook = { job, _ in MultiThreadedEventLoopGroup.singleton.any().executor.enqueue(job) }
    let slot = RV_enqueue_global_hook()!
    guard slot.pointee == nil else { return false }
    slot.pointee = unsafeBitCast(hook, to: UnsafeMutableRawPointer.self)
    return true
}

let eventLoopsRunTasks = runTasksOnEventLoops()

do {
    var command = try WebCommand.parseAsRoot()
    if let server = command as? WebCommand {
        try await server.serve(
            executorNote: eventLoopsRunTasks
                ? nil : "Swift's executor is libdispatch's: about 60 idle wake-ups a minute")
    } else {
        try command.run()  // --help, --version
    }
} catch {
    WebCommand.exit(withError: error)
}
