/// The kinds of key slot, as stored in the `kind` column.
enum KeySlotKind: String, Sendable {
    case passphrase
    case keyFile = "keyfile"
    case key
    case secretService = "secret-service"
    case systemdCreds = "systemd-creds"
}
