import NIOCore
import NIOPosix
import ReveilleWeb

// Swift's default executor (libdispatch) keeps a once-a-second timer while it has worker threads:
// 60 wake-ups a minute on an idle clock. NIO's event loops run the tasks instead, and sleep.
_ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

do {
    var command = try WebCommand.parseAsRoot()
    if let server = command as? WebCommand {
        try await server.serve()
    } else {
        try command.run()  // --help, --version
    }
} catch {
    WebCommand.exit(withError: error)
}
