import ArgumentParser
import FoundationEssentials
import Glibc

/// Coffer's exit statuses: the one table that every executable exits with, and that
/// `coffer --help` and coffer(1) print (``helpBlock``).
///
/// Scripts test these numbers, so a case never changes its number. From 64 on they follow
/// sysexits(3); 130 is 128 + SIGINT, as a shell reports an interrupted command.
package enum ExitStatus: Int32, CaseIterable, Sendable {
    case ok = 0
    case notFound = 1
    case locked = 2
    case integrityFailure = 3
    case loginNeeded = 4
    case httpError = 5
    case logoutIncomplete = 6
    case challengeFailed = 7
    case blocked = 8
    case challengeCancelled = 9
    case refreshRefused = 10
    case loginDenied = 11
    case untrustedReply = 12
    case accessDenied = 13
    case usage = 64
    case dataError = 65
    case noVault = 66
    case unavailable = 69
    case software = 70
    case alreadyExists = 73
    case outputFailed = 74
    case timedOut = 75
    case badReply = 76
    case insecurePermissions = 77
    case cancelled = 130

    /// What the status means, in one sentence. ASCII only: generate-manual drops other characters.
    package var meaning: String {
        switch self {
        case .ok: "success"
        case .notFound: "item not found; agent status and agent stop: no agent runs"
        case .locked:
            "wrong passphrase or key, or the vault or Secret Service collection is locked; a systemd credential "
                + "that does not open here (another machine's host key, another TPM, a changed PCR, another vault's "
                + "credential), or no service credential in $CREDENTIALS_DIRECTORY"
        case .integrityFailure: "integrity failure or corrupt vault; check: problems found"
        case .loginNeeded:
            "a new login is needed: not logged in, credentials refused, the token expired with nothing to renew it, "
                + "a session of another backend, or no handler for a security check"
        case .httpError: "request: the resource answered an HTTP error (its body is printed)"
        case .logoutIncomplete: "logout incomplete: the local session is removed, a server step failed"
        case .challengeFailed: "a challenge failed: the security check or realm refused the answers"
        case .blocked: "blocked after too many challenge attempts"
        case .challengeCancelled: "the challenge was cancelled, or its answers ran out"
        case .refreshRefused: "the provider or backend refused the refresh token: log in again"
        case .loginDenied: "the OpenID login was denied or ended by the provider, or its device code expired"
        case .untrustedReply: "a reply failed a security check (issuer, ID token)"
        case .accessDenied:
            "access denied: the vault's access policy keeps this program from the item (coffer access grant allows it)"
        case .usage: "usage error or invalid argument"
        case .dataError:
            "data error: a secret too large or not UTF-8, a credential helper request refused, or unreadable stored login settings"
        case .noVault: "no vault at the path"
        case .unavailable:
            "storage, the Secret Service, the agent or the backend unavailable; systemd-creds missing or failing, "
                + "or the TPM2 device unreachable"
        case .software: "any other error"
        case .alreadyExists: "the vault already exists, or an item a credential helper did not write"
        case .outputFailed: "the output cannot be written (stdout closed, full or broken)"
        case .timedOut:
            "timed out: the Secret Service, the backend, a challenge, the agent, or a TPM that does not answer "
                + "in --systemd-creds-timeout seconds (default 10)"
        case .badReply: "a bad reply from the backend"
        case .insecurePermissions: "insecure permissions, or an agent socket that is not this user's"
        case .cancelled: "the wait was cancelled"
        }
    }

    /// Ends the process with this status.
    package func exit() -> Never {
        Glibc.exit(rawValue)
    }
}

extension ExitCode {
    /// Ends the command with `status` and nothing on stderr: for an outcome its output has
    /// already told.
    package init(_ status: ExitStatus) {
        self.init(status.rawValue)
    }
}
