import ArgumentParser
import CWebShims
import Dispatch
import Glibc
import NIOCore
import NIOPosix

/// The program `reveille-web` (and `reveille` started under that name).
public enum WebMain {
    /// Parses the command line and serves until the process is stopped; `--help` and `--version`
    /// print and end.
    public static func start() -> Never {
        let eventLoopsRunTasks = runTasksOnEventLoops()
        let command: any ParsableCommand
        do {
            command = try WebCommand.parseAsRoot()
        } catch {
            WebCommand.exit(withError: error)
        }
        guard let server = command as? WebCommand else {
            do {
                var command = command
                try command.run()  // --help, --version
                WebCommand.exit()
            } catch {
                WebCommand.exit(withError: error)
            }
        }
        // The server is a task; this thread only waits for it to end (it ends the process itself).
        Task {
            do {
                try await server.serve(
                    executorNote: eventLoopsRunTasks
                        ? nil : "Swift's executor is libdispatch's: about 60 idle wake-ups a minute")
                WebCommand.exit()
            } catch {
                WebCommand.exit(withError: error)
            }
        }
        while true { pause() }
    }

    /// Swift's default executor (libdispatch) keeps a once-a-second timer while it has worker threads:
    /// 60 wake-ups a minute on an idle clock. NIO's event loops run the tasks instead, and sleep.
    static func runTasksOnEventLoops() -> Bool {
        if NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() { return true }
        // The runtime linked in statically: the same hook, found by the linker instead of dlsym.
        typealias EnqueueHook = @convention(thin) (UnownedJob, @convention(thin) (UnownedJob) -> Void) -> Void
        let hook: EnqueueHook = { job, _ in MultiThreadedEventLoopGroup.singleton.any().executor.enqueue(job) }
        let slot = RV_enqueue_global_hook()!
        guard slot.pointee == nil else { return false }
        slot.pointee = unsafeBitCast(hook, to: UnsafeMutableRawPointer.self)
        return true
    }
}
