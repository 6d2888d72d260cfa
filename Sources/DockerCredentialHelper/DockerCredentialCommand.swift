import ArgumentParser
import Coffer
import CofferBase
import CofferCommandLine
import FoundationEssentials
import Glibc

/// `docker-credential-coffer`: docker's credential helper on a Coffer vault
/// (`"credsStore": "coffer"` in ~/.docker/config.json).
struct DockerCredentialCommand: ParsableCommand, CredentialHelperRoot {
    static let name = "docker-credential-coffer"
    /// The status of every error: docker's protocol has one, 1, and tells errors apart by their
    /// text; it is coffer's "not found" only in number.
    static let errorStatus = ExitStatus.notFound

    static let configuration = CommandConfiguration(
        commandName: name,
        abstract: "docker's credential helper on a Coffer vault: \"credsStore\": \"coffer\" in ~/.docker/config.json",
        discussion: """
            store reads {"ServerURL","Username","Secret"} on stdin; get reads a server URL and \
            prints that JSON; erase reads a server URL; list prints {"URL":"user",...}; version. \
            A Username of <token> marks an identity token. Errors are one line on stdout and \
            exit status \(errorStatus.rawValue); a missing entry is "credentials not found in native keychain".

            The vault is --vault or $COFFER_VAULT, else the default vault. It is used through \
            the agent when the agent holds it (coffer unlock), else unlocked as coffer does \
            (key file, $COFFER_PASSPHRASE, --passphrase-fd, Secret Service slot), never by \
            asking on the terminal.
            """,
        version: "\(name) (Coffer) \(CofferVersion.current)")

    @OptionGroup var vault: VaultOptions
    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("store, get, erase, list or version.", valueName: "action"))
    var action: String

    /// Runs the helper from its entry point in libCofferCommands.so (``CommandLineTool/runToExit(_:onFailure:)``).
    @MainActor
    static func runFromLibrary() -> Never {
        Terminal.programName = name
        CommandLineTool.runToExit(Self.self, onFailure: report)
    }

    func run() throws {
        switch action {
        case "version":
            try StandardStreams.printLine(Self.configuration.version)
        case "list":
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try StandardStreams.write(try encoder.encode(try actions().list()) + Data("\n".utf8))
        case "store":
            let credentials = try DockerCredentials(json: try Self.input())
            try credentials.validate()
            try actions().store(credentials)
        case "get":
            let serverURL = try DockerCredentials.serverURL(from: try Self.input())
            try StandardStreams.write(try actions().get(serverURL).json)
        case "erase":
            try actions().erase(try DockerCredentials.serverURL(from: try Self.input()))
        default:
            throw DockerHelperError.unknownAction(action)
        }
    }

    private func actions() throws -> DockerCredentialActions {
        DockerCredentialActions(store: try credentialHelperStore())
    }

    /// All of stdin, up to ``DescriptorInput/limit``.
    private static func input() throws -> [UInt8] {
        guard let bytes = try DescriptorInput.readAll(STDIN_FILENO, limit: DescriptorInput.limit) else {
            throw DockerHelperError.inputTooLarge
        }
        return bytes.withUnsafeBytes { Array($0) }
    }

    /// Ends the process for `error` as docker's helpers do: one line on stdout, ``errorStatus``;
    /// a refusal by the vault's access policy exits 13 (``ExitStatus/accessDenied``), which
    /// docker takes as any failure while a script can tell it apart. `--help`, `--version` and
    /// the like print as usual.
    static func report(_ error: Error) -> Never {
        if error is ExitCode || exitCode(for: error) == .success { CommandLineTool.fail(error, Self.self) }
        let message = (error as? CommandFailure)?.message
            ?? "\(Self.message(for: error)) (usage: \(name) [options] <store|get|erase|list|version>)"
        try? StandardStreams.printLine(TerminalText.escaped(message))
        if case .accessDenied? = error as? CofferError { ExitStatus.accessDenied.exit() }
        errorStatus.exit()
    }
}
