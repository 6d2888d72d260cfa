import CofferAgent

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
    /// Other programs' items to ask the person about (an `Unlock` of items alone).
    var accessRequests: [AccessRequest] = []
    /// The most items one `Unlock` asks the person about, one question each.
    static let maxAccessRequests = 16

    init(path: String, owner: String, collections: [ServedCollection], targets: [Target], alreadyUnlocked: [String]) {
        self.path = path
        self.owner = owner
        self.collections = collections
        self.targets = targets
        self.alreadyUnlocked = alreadyUnlocked
    }
}

/// The prompts not yet completed, each owned by the connection that got it. A connection may
/// hold at most ``perConnection`` and all of them together ``total``; past that, `Unlock` is
/// refused, or makes room by ending the oldest prompt of the connections holding the most
/// (``PerConnectionTable``).
struct PromptTable {
    static let perConnection = 16
    static let total = 1024

    private var prompts = PerConnectionTable<PendingPrompt>(perConnection: perConnection, total: total, what: "prompts")
    private var counter = 0

    /// A new prompt for `owner`, and the prompts that ended to make room for it (the caller
    /// completes them, dismissed).
    mutating func add(
        owner: String, collections: [ServedCollection], targets: [PendingPrompt.Target], alreadyUnlocked: [String]
    ) throws(DBusError) -> (PendingPrompt, evicted: [PendingPrompt]) {
        counter += 1
        let prompt = PendingPrompt(
            path: ObjectPaths.prompts + "/p\(counter)", owner: owner, collections: collections, targets: targets,
            alreadyUnlocked: alreadyUnlocked)
        let evicted = try prompts.add(prompt, at: prompt.path, owner: owner)
        return (prompt, evicted)
    }

    /// The prompt at `path` for `caller`; `NoSuchObject` when there is none or it is another's.
    func prompt(at path: String, for caller: String) throws(DBusError) -> PendingPrompt {
        guard let prompt = prompts.value(at: path, for: caller) else { throw .noSuchObject("no such prompt") }
        return prompt
    }

    /// The prompt at `path`, whoever owns it; `nil` once it completed or was dismissed.
    func prompt(at path: String) -> PendingPrompt? { prompts.value(at: path) }

    @discardableResult
    mutating func remove(_ path: String) -> PendingPrompt? { prompts.remove(path) }

    /// Drops the prompts of a connection that left the bus, ending their prompters.
    mutating func removeAll(of owner: String) {
        for prompt in prompts.removeAll(of: owner) { prompt.run?.cancel() }
    }

    var paths: [String] { prompts.paths }
}
