import FoundationEssentials

/// The prose of `coffer --help` and of the manual page coffer(1), which swift-argument-parser's
/// generate-manual makes from the same configuration (scripts/man.sh).
///
/// `--help` shows ``overview``: a few lines, one sentence each, so that the terminal never
/// breaks a sentence. The manual adds ``details``: generate-manual reads the command through
/// `coffer --experimental-dump-help`, and only that run gets them (``discussionLead``).
enum CofferHelpText {
    /// What `--help` opens with: one sentence a line, each shorter than the
    /// 80 columns swift-argument-parser wraps help at when there is no terminal.
    static let overview = """
        Keeps passwords and tokens for people and scripts, in an encrypted vault.
        `coffer init` creates a vault; `coffer set SERVICE ACCOUNT` stores stdin.
        `coffer get SERVICE ACCOUNT` prints it: secrets never go in arguments.
        The vault is --vault PATH, else $COFFER_VAULT, else the default vault.
        It opens with a key file, a passphrase, or a slot of the machine (--unlock).
        `coffer agent start` and `coffer unlock` keep it open between commands.
        `--backend secret-service` uses the desktop keyring instead of a vault.
        """

    /// The overview's last line in `--help` alone: where the rest is.
    static let pointer = "The manual page, coffer(1), has the details (make man)."

    /// The manual's further paragraphs: where the vault is, how it opens, the Secret Service.
    static let details = """
        The vault is $COFFER_VAULT or --vault, else $XDG_DATA_HOME/coffer/default.vault.

        It opens with a key file (--keyfile or $COFFER_KEYFILE) or a passphrase, read from \
        --passphrase-fd N, else $COFFER_PASSPHRASE, else a no-echo prompt on the terminal.

        A vault with a Secret Service or systemd-creds slot and no key file or passphrase given \
        opens through that slot alone; --unlock secret-service,passphrase (or \
        systemd-creds,passphrase) asks for the passphrase fallback explicitly.

        A service that systemd starts with LoadCredential= opens it with the key in \
        $CREDENTIALS_DIRECTORY (--unlock credential, --credential NAME; default coffer-vault-key).

        $COFFER_TPM2_DEVICE names the TPM2 device over the one a systemd-creds slot stores.

        With --backend secret-service, get, set, delete and list use the Secret Service's \
        default collection instead of a vault (items secret-tool reads as service/username).

        Secrets never go on the command line: `set` reads stdin and `get` writes stdout.
        """

    /// The discussion's prose: the overview, then the details for the manual, or in `--help`
    /// the pointer to the manual.
    static var discussionLead: String {
        CommandLine.arguments.contains("--experimental-dump-help") ? overview + "\n\n" + details : overview + "\n" + pointer
    }
}
