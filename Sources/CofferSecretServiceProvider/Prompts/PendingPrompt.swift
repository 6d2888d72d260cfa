/// A prompt object: what `Unlock` returns when a collection needs a passphrase. Its `Prompt`
/// call runs the prompter; `Completed` reports the outcome (specification, "Prompts").
final class PendingPrompt {
    /// An object `Unlock` was asked for, and what the result reports for it once its collection
    /// is unlocked.
    enum Target {
        /// A collection, alias or item path: reported as the client gave it (go-keyring checks
        /// that the result is exactly the path it asked for).
        case object(String, ServedCollection)
        /// A locked match: reported as the items its search finds in the unlocked collection.
        case match(LockedMatch)

        var collection: ServedCollection {
            switch self {
            case .object(_, let collection): collection
            case .match(let match): match.collection
            }
        }
    }

    let path: String
    /// The connection that got the prompt: only it may run or dismiss it.
    let owner: String
    /// The collections to unlock (the login collection first when a created one needs it).
    let collections: [ServedCollection]
    /// The objects asked for that wait for the unlock, and those already unlocked, which the
    /// result lists too.
    let targets: [Target]
    let alreadyUnlocked: [String]
    /// Set while the prompter runs, so `Dismiss` can end it.
    var run: PrompterCommand.Run?

    init(path: String, owner: String, collections: [ServedCollection], targets: [Target], alreadyUnlocked: [String]) {
        self.path = path
        self.owner = owner
        self.collections = collections
        self.targets = targets
        self.alreadyUnlocked = alreadyUnlocked
    }
}

/// The prompts not yet completed. A connection may hold at most ``perConnection``.
struct PromptTable {
    static let perConnection = 16
    static let total = 1024

    private var prompts: [String: PendingPrompt] = [:]
    private var counter = 0

    mutating func add(
        owner: String, collections: [ServedCollection], targets: [PendingPrompt.Target], alreadyUnlocked: [String]
    ) throws(DBusError) -> PendingPrompt {
        guard prompts.count < Self.total, prompts.values.count(where: { $0.owner == owner }) < Self.perConnection else {
            throw .limitsExceeded("too many prompts waiting")
        }
        counter += 1
        let prompt = PendingPrompt(
            path: ObjectPaths.prompts + "/p\(counter)", owner: owner, collections: collections, targets: targets,
            alreadyUnlocked: alreadyUnlocked)
        prompts[prompt.path] = prompt
        return prompt
    }

    /// The prompt at `path` for `caller`; `NoSuchObject` when there is none or it is another's.
    func prompt(at path: String, for caller: String) throws(DBusError) -> PendingPrompt {
        guard let prompt = prompts[path], prompt.owner == caller else { throw .noSuchObject("no such prompt") }
        return prompt
    }

    @discardableResult
    mutating func remove(_ path: String) -> PendingPrompt? { prompts.removeValue(forKey: path) }

    /// Drops the prompts of a connection that left the bus, ending their prompters.
    mutating func removeAll(of owner: String) {
        for prompt in prompts.values where prompt.owner == owner { prompt.run?.cancel() }
        prompts = prompts.filter { $0.value.owner != owner }
    }

    var paths: [String] { Array(prompts.keys) }
}
