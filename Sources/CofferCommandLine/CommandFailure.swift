/// An error the CLI reports as one line on stderr, with its documented exit status.
package protocol CommandFailure: Error {
    /// The line after `coffer: `; never holds a secret.
    var message: String { get }
    var exitStatus: ExitStatus { get }
}

/// A failure of the command-line tool itself, with its exit status.
package struct CLIError: CommandFailure {
    package let message: String
    package let exitStatus: ExitStatus

    package init(message: String, exitStatus: ExitStatus) {
        self.message = message
        self.exitStatus = exitStatus
    }

    package static func usage(_ message: String) -> CLIError { CLIError(message: message, exitStatus: .usage) }
    /// No credential could be had: the vault stays locked.
    package static func noCredential(_ message: String) -> CLIError { CLIError(message: message, exitStatus: .locked) }
}
