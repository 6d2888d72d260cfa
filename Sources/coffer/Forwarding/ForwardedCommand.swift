import ArgumentParser
import CofferCommandLine
import Glibc

/// A subcommand another Coffer executable runs, so that `coffer` itself links no networking:
/// `coffer login …` replaces itself with `coffer-auth login …` (same arguments), and
/// `coffer dev-backend ARGS` with `coffer-dev-backend ARGS`, both from `coffer`'s own folder.
///
/// ``CofferCommand/main()`` forwards before parsing (``ForwardedInvocation``), so that
/// `coffer login --help` prints the real command's help; these types list the commands in
/// `coffer --help` and catch any invocation the scan left alone.
protocol ForwardedCommand: ParsableCommand {
    /// The executable that runs this command.
    static var executable: ForwardedExecutable { get }
    var arguments: [String] { get }
}

extension ForwardedCommand {
    func run() throws {
        let all = Array(CommandLine.arguments.dropFirst())
        let name = Self.configuration.commandName ?? ""
        let arguments = Self.executable.keepsSubcommand ? all : Array(all.drop { $0 != name }.dropFirst())
        try Self.executable.replaceProcess(arguments: arguments)
    }
}

/// The executables `coffer` hands commands to.
enum ForwardedExecutable: String {
    case auth = "coffer-auth"
    case devBackend = "coffer-dev-backend"

    /// Whether the executable gets the whole command line (its own root takes the vault options
    /// and the subcommand), or only the arguments after the subcommand's name.
    var keepsSubcommand: Bool { self == .auth }

    /// Runs the executable in place of this process (`execv`): same pid, descriptors and environment.
    func replaceProcess(arguments: [String]) throws -> Never {
        let path = try Self.folder() + "/" + rawValue
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        throw CLIError(message: "cannot run \(path): \(reason) (it is installed beside coffer)", exitStatus: 69)
    }

    /// The folder of the running `coffer` executable, from `/proc/self/exe`. Never the working
    /// folder when that cannot be read: a `coffer-auth` there could be anyone's.
    private static func folder() throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count)
        let reason = length < 0 ? String(cString: strerror(errno)) : "no usable path"
        let path = length > 0 && length < buffer.count ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/") else {
            throw CLIError(message: "cannot find the folder coffer runs from (/proc/self/exe: \(reason)), where coffer-auth and coffer-dev-backend are", exitStatus: 69)
        }
        return String(path[..<slash])
    }
}

struct LoginForward: ForwardedCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Log in to an OpenID provider (--issuer) or a mobile backend (--backend-url); the login persists in the store.")
    static let executable = ForwardedExecutable.auth
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
}

struct TokenForward: ForwardedCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Print a valid access token of an OpenID login, refreshing it first when needed.")
    static let executable = ForwardedExecutable.auth
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
}

struct StatusForward: ForwardedCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show a stored login, without the network: an OpenID profile, or the mobile backend's session.")
    static let executable = ForwardedExecutable.auth
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
}

struct LogoutForward: ForwardedCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Log out: remove the session from the vault, then revoke the token.")
    static let executable = ForwardedExecutable.auth
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
}

struct SSOExchangeForward: ForwardedCommand {
    static let configuration = CommandConfiguration(
        commandName: "sso-exchange", abstract: "Exchange a third-party token (read from stdin) for a backend token.")
    static let executable = ForwardedExecutable.auth
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
}

struct RequestForward: ForwardedCommand {
    static let configuration = CommandConfiguration(
        commandName: "request", abstract: "GET a protected URL and print the body: with the stored login, or answering MobileFirst or MCA challenges.")
    static let executable = ForwardedExecutable.auth
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
}

struct DevBackendForward: ForwardedCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev-backend", abstract: "Run the development backend on 127.0.0.1 until interrupted (coffer-dev-backend).")
    static let executable = ForwardedExecutable.devBackend
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
}
