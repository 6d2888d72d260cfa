import ArgumentParser
import Coffer
import CofferBase
import CofferCommandLine

/// SERVICE and ACCOUNT, naming one item.
struct ItemSelector: ParsableArguments {
    @Argument(help: "The service (with --internet, the server).")
    var service: String

    @Argument(help: "The account.")
    var account: String

    @Flag(help: "The item is an internet password: SERVICE names a server.")
    var internet = false

    /// SERVICE and ACCOUNT as the text output names the item, escaped (``TerminalText``).
    var escapedName: String {
        TerminalText.escaped(service) + " " + TerminalText.escaped(account)
    }

    var id: ItemID {
        internet ? .internetPassword(server: service, account: account) : .genericPassword(service: service, account: account)
    }
}
