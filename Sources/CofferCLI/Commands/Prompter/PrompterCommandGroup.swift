import ArgumentParser

/// `coffer prompter`: prompters that `coffer agent start --prompter` can run.
struct PrompterCommandGroup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prompter",
        abstract: "Prompters for `coffer agent start --prompter` (docs/prompts.md).",
        subcommands: [PinentryPrompterCommand.self])
}
