import CofferAgent
import Coffer
import CofferCommandLine
import Dispatch
import Glibc

/// Stops a foreground agent on SIGTERM (systemd's stop), SIGINT and SIGHUP, so it forgets every
/// vault and removes its socket before it exits.
enum AgentSignals {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    static func stop(_ server: AgentServer, onSignals signals: [Int32]) {
        on(signals) { server.stop() }
    }

    /// Runs `action` on a global queue at each of `signals`, which no longer end the process.
    static func on(_ signals: [Int32], _ action: @escaping @Sendable () -> Void) {
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: action)
            source.resume()
            sources.append(source)
        }
    }
}
