/// What a prompter is asked: the value of `COFFER_PROMPT_KIND` (docs/prompts.md).
package enum PromptKind: String, Sendable, CaseIterable {
    /// A vault's passphrase: the prompter writes it as the first line of its standard output.
    case passphrase
    /// Whether a program may read an item: the prompter writes `once`, `always` or `deny`.
    case access
}
