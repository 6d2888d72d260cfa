import ArgumentParser
import Coffer

/// `--profile NAME`: which login a command uses.
package struct ProfileOption: ParsableArguments {
    /// The profile a command uses when none is named.
    package static let defaultName = "default"

    @Option(help: ArgumentHelp("The login to use (default: default). 1-64 letters, digits, '.', '_' or '-'.", valueName: "name"))
    package var profile: String?

    package init() {}

    package func validate() throws {
        if let profile, !AgentRequest.isValidProfile(profile) {
            throw ValidationError("a profile name is 1-64 letters, digits, '.', '_' or '-'")
        }
    }

    package var name: String { profile ?? Self.defaultName }
}
