import CofferThinClient
import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc

/// What every Coffer executable does around its command: the same start-up checks, and every
/// error turned into one line on stderr and its documented exit status.
package enum CommandLineTool {
    /// Parses the command line as `Root` and runs the command.
    ///
    /// Before anything else: closed standard streams are held by /dev/null, a crash prints no
    /// memory, arguments that are not UTF-8 are refused and the command line is parsed; a
    /// command that may use items through the agent has the agent identify this process
    /// (``UsesAgentForItems``), which it can only while the process is dumpable; then the process
    /// is made not dumpable (``ProcessHardening``), and every file descriptor the command names
    /// is read, before any vault is opened or any secret read. On the main
    /// actor, as `main` is: a hop to another executor first would start threads whose
    /// descriptors could take the numbers of closed standard streams.
    ///
    /// `onFailure` ends the process for an error instead of ``fail(_:_:)``: for a protocol
    /// that wants its errors elsewhere (docker's credential helpers answer on stdout).
    @MainActor
    package static func run<Root: ParsableCommand>(
        _ root: Root.Type, arguments: [String]? = nil, onFailure: ((Error) -> Never)? = nil
    ) async {
        // Handed whole to runAsync below and never touched here again.
        nonisolated(unsafe) let parsed = prepare(root, arguments: arguments, onFailure: onFailure)
        do {
            if parsed is AsyncParsableCommand {
                try await runAsync(parsed)
            } else {
                var command = parsed
                try command.run()
            }
        } catch {
            if let onFailure { onFailure(error) }
            fail(error, Root.self)
        }
    }

    /// ``run(_:arguments:onFailure:)`` from a synchronous entry point (``LibraryEntryPoint``), then
    /// exits: the start-up steps and a synchronous command run on this thread with no task and no
    /// dispatch thread started; an async command runs in a task on the main actor after them,
    /// while dispatch's main loop runs.
    @MainActor
    package static func runToExit<Root: ParsableCommand>(_ root: Root.Type, onFailure: ((Error) -> Never)? = nil) -> Never {
        let parsed = prepare(root, arguments: nil, onFailure: onFailure)
        guard parsed is AsyncParsableCommand else {
            do {
                var command = parsed
                try command.run()
            } catch {
                if let onFailure { onFailure(error) }
                fail(error, Root.self)
            }
            Glibc.exit(0)
        }
        // Handed whole to the task, never touched here again.
        nonisolated(unsafe) let handed = parsed
        Task { @MainActor in
            do {
                try await runAsync(handed)
            } catch {
                if let onFailure { onFailure(error) }
                fail(error, Root.self)
            }
            Glibc.exit(0)
        }
        dispatchMain()
    }

    /// The start-up steps of ``run(_:arguments:onFailure:)``, up to the command itself: the parsed
    /// command, or the process ended for the error.
    @MainActor
    private static func prepare<Root: ParsableCommand>(
        _ root: Root.Type, arguments: [String]?, onFailure: ((Error) -> Never)?
    ) -> ParsableCommand {
        StandardStreams.prepare()
        ProcessHardening.preventCrashOutput()
        do {
            try ArgumentEncoding.check()
            let parsed = try Root.parseAsRoot(arguments)
            (parsed as? UsesAgentForItems)?.identifyToAgent(reserved: (parsed as? ReadsDescriptors)?.namedDescriptors ?? [])
            ProcessHardening.makeNotDumpable()
            if let reader = parsed as? ReadsDescriptors {
                try DescriptorInput.prefetch(reader.namedDescriptors, vault: try? reader.vaultOptions?.url())
            }
            return parsed
        } catch {
            if let onFailure { onFailure(error) }
            fail(error, Root.self)
        }
    }

    /// Runs an async command off the main actor; it is handed over whole, used here no more.
    private static func runAsync(_ command: ParsableCommand) async throws {
        guard var asyncCommand = command as? AsyncParsableCommand else { return }
        try await asyncCommand.run()
    }

    /// Ends the process for `error`: its line on stderr (prefixed `coffer: `, or the
    /// executable's ``Terminal/programName``) and exit status. A usage error points at the
    /// help; an error that no table maps is ``ExitStatus/software``, never a status that
    /// means something else.
    package static func fail<Root: ParsableCommand>(_ error: Error, _ root: Root.Type) -> Never {
        if let code = error as? ExitCode { Glibc.exit(code.rawValue) }
        if let failure = error as? CommandFailure {
            Terminal.printError(failure.message)
            failure.exitStatus.exit()
        }
        switch Root.exitCode(for: error) {
        case .validationFailure:
            let help = Terminal.programName == "coffer" ? "coffer help" : "\(Terminal.programName) --help"
            Terminal.printError("\(Root.message(for: error)) (see '\(help)')")
            ExitStatus.usage.exit()
        case .failure where !(error is CleanExit):
            Terminal.printError(Root.message(for: error))
            ExitStatus.software.exit()
        default:
            Root.exit(withError: error)  // help, version, completions: printed as the parser does
        }
    }
}
