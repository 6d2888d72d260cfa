import CofferCommandLine

/// The errors of docker's credential helper protocol: each is one line on stdout and
/// ``DockerCredentialCommand/errorStatus``, and the standard ones read exactly as
/// docker/docker-credential-helpers writes them (credentials/error.go), since docker matches
/// "not found" by its text.
enum DockerHelperError: CommandFailure, Equatable {
    case notFound
    case missingServerURL
    case missingUsername
    case invalidJSON(String)
    case invalidInput(String)
    case unknownAction(String)
    /// The vault holds an item for this server and user that this helper did not write.
    case notOurs

    var message: String {
        switch self {
        case .notFound: "credentials not found in native keychain"
        case .missingServerURL: "no credentials server URL"
        case .missingUsername: "no credentials username"
        case .invalidJSON(let reason): "invalid credentials JSON: \(reason)"
        case .invalidInput(let reason): reason
        case .unknownAction(let action): "\(DockerCredentialCommand.name): unknown action: \(action)"
        case .notOurs: "the vault already holds an item for this server and user that \(DockerCredentialCommand.name) did not write; not replacing it (see coffer list)"
        }
    }

    var exitStatus: ExitStatus { DockerCredentialCommand.errorStatus }

    /// An input past what the helper reads (``DescriptorInput/limit``).
    static let inputTooLarge = DockerHelperError.invalidInput("the input is larger than \(DescriptorInput.limit) bytes")
}
