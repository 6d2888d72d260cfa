/// The environment variables that tell a prompter what to ask (docs/prompts.md). They never go
/// on its command line.
package enum PromptVariable {
    /// ``PromptKind``: `passphrase` or `access`.
    package static let kind = "COFFER_PROMPT_KIND"
    /// The text to show, values in it escaped visibly (``TerminalText``).
    package static let text = "COFFER_PROMPT"
    /// Access: the program that asks, as it is (``AccessQuestion/program``).
    package static let program = "COFFER_PROMPT_PROGRAM"
    /// Access: the item it asks for, as it is (``AccessQuestion/item``).
    package static let item = "COFFER_PROMPT_ITEM"
    /// Access: the vault's path, as it is.
    package static let vault = "COFFER_PROMPT_VAULT"
    /// The whole seconds the agent waits for the answer before it ends the prompter.
    package static let timeout = "COFFER_PROMPT_TIMEOUT"

    /// `value` as an environment can hold it: a NUL (which would end it early) becomes U+FFFD.
    static func value(_ value: String) -> String {
        String(String.UnicodeScalarView(value.unicodeScalars.map { $0.value == 0 ? "\u{FFFD}" : $0 }))
    }
}
