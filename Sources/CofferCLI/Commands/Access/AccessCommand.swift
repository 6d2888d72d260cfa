import ArgumentParser
import CofferCommandLine

/// `coffer access`: which programs read which items of the vault, the vault's policy, and the
/// audit log (docs/access.md).
struct AccessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "access",
        abstract: "Show and change which programs may read an item, the vault's access policy, and the audit log.",
        discussion: """
            Every subcommand opens the vault here with one of its credentials (--keyfile, --passphrase-fd, \
            $COFFER_PASSPHRASE, --unlock, or the passphrase prompt), never through the agent: a program the \
            agent lets read an item cannot change who reads it. grant, revoke and policy changes are logged \
            in the vault's audit log. See docs/access.md.
            """ + "\n\n" + ExitStatus.helpBlock([.ok, .notFound, .locked, .integrityFailure, .usage, .noVault, .unavailable]),
        subcommands: [AccessShow.self, AccessGrant.self, AccessRevoke.self, AccessPolicyCommand.self, AccessLog.self])
}
