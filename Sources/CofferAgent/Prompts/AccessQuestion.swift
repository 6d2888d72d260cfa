import CofferBase

/// "May this program read this item?": what an access prompt asks (docs/prompts.md).
///
/// The prompter gets each value as it is, in its own variable (``PromptVariable``), and the
/// question as text in `COFFER_PROMPT`, where the values are escaped visibly (``TerminalText``):
/// a line break, an escape sequence or a bidirectional control in a label or a path shows as
/// `\n`, `\x1b` or `\u{202e}`, so it cannot forge a line or reorder what the person reads.
package struct AccessQuestion: Sendable, Equatable {
    /// The program that asks: its executable's path (the caller's identity names it), in
    /// `COFFER_PROMPT_PROGRAM`.
    package var program: String
    /// How the question's text names the program: its path, and its script, sandbox, service
    /// and pins (``Program/description``); the path alone when `nil`.
    package var programDescription: String?
    /// The item it asks for: its label, or its service and account (``itemName(label:service:account:)``).
    package var item: String
    /// The vault's path.
    package var vault: String

    package init(program: String, item: String, vault: String, programDescription: String? = nil) {
        self.program = program
        self.programDescription = programDescription
        self.item = item
        self.vault = vault
    }

    /// How a question names an item: its label when it has one, else `SERVICE (account ACCOUNT)`.
    package static func itemName(label: String?, service: String, account: String) -> String {
        if let label, !label.isEmpty { return label }
        return "\(service) (account \(account))"
    }

    /// The question as the person reads it: one value a line, each escaped.
    package var text: String {
        """
        A program asks to read an item of your Coffer vault.
        Program: \(TerminalText.escaped(programDescription ?? program))
        Item: \(TerminalText.escaped(item))
        Vault: \(TerminalText.escaped(vault))
        """
    }

    /// The second question of a prompter that offers two answers at a time (the pinentry
    /// prompter), asked once the first was answered "allow".
    package var alwaysText: String {
        """
        Always allow \(TerminalText.escaped(programDescription ?? program)) to read \(TerminalText.escaped(item)), without asking again?
        Coffer then adds the program to the item's access list.
        """
    }

    /// The prompter's variables for this question (the kind and the text included).
    var variables: [String: String] {
        [
            PromptVariable.kind: PromptKind.access.rawValue, PromptVariable.text: text,
            PromptVariable.program: program, PromptVariable.item: item, PromptVariable.vault: vault,
        ]
    }

    /// The question a prompter was asked, read back from its environment; `nil` unless the kind
    /// is `access` and the three values are set.
    package init?(variables: [String: String]) {
        guard variables[PromptVariable.kind] == PromptKind.access.rawValue, let program = variables[PromptVariable.program],
              let item = variables[PromptVariable.item], let vault = variables[PromptVariable.vault]
        else { return nil }
        self.init(program: program, item: item, vault: vault)
    }
}
