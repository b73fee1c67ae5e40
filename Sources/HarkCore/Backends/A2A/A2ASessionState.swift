import FoundationEssentials
import Glibc

/// What an A2A session remembers between replies and between hark processes (a script's
/// `hark -s helper …` calls follow each other), in `$XDG_DATA_HOME/hark/a2a/SESSION.json`
/// (mode 0600, no secrets):
/// - the agent card and when it was fetched, so a one-shot message costs one request, not two;
/// - per context (thread), the task that waits for the user (`input-required`,
///   `auth-required`): the next message goes to it;
/// - the files agents sent, numbered for `/download N` (their bytes are fetched again from the
///   task when this process did not receive them).
/// In memory only: the task of each thread's latest reply (for stop) and received bytes.
/// One per session and data folder, shared by every backend of that session (a config reload
/// builds a new backend while a reply may still stream through the old one).
final class A2ASessionState: @unchecked Sendable {
    struct CachedCard {
        var url: String
        var fetched: Double
        var maxAge: Double
        var json: JSON
    }

    struct StoredFile: Equatable {
        var number: Int
        var taskID: String?
        var artifactID: String?
        var partIndex: Int
        var name: String?
        var mediaType: String?
        var size: Int?
        var url: String?
    }

    private let path: String
    private let lock = Lock()
    private var loaded = false
    private var card: CachedCard?
    private var pending: [String: String] = [:]
    private var files: [StoredFile] = []
    private var bytes: [Int: [UInt8]] = [:]
    private var lastTasks: [Int64: (taskID: String, settled: Bool)] = [:]
    static let keptFiles = 200

    init(path: String) {
        self.path = path
    }

    // MARK: One per session and home

    private nonisolated(unsafe) static var all: [String: A2ASessionState] = [:]
    private static let registryLock = Lock()

    static func shared(paths: Paths, session: String) -> A2ASessionState {
        let path = paths.dataDirectory + "/a2a/" + session.replacingOccurrences(of: "/", with: "_") + ".json"
        return registryLock.withLock {
            if let existing = all[path] { return existing }
            let made = A2ASessionState(path: path)
            all[path] = made
            return made
        }
    }

    // MARK: The card

    func cachedCard(url: String, now: Double) -> JSON? {
        lock.withLock {
            loadIfNeeded()
            guard let card, card.url == url, now - card.fetched < card.maxAge, now >= card.fetched else { return nil }
            return card.json
        }
    }

    func storeCard(_ json: JSON, url: String, fetched: Double, maxAge: Double) {
        lock.withLock {
            loadIfNeeded()
            card = CachedCard(url: url, fetched: fetched, maxAge: maxAge, json: json)
            save()
        }
    }

    func forgetCard() {
        lock.withLock {
            loadIfNeeded()
            guard card != nil else { return }
            card = nil
            save()
        }
    }

    // MARK: Tasks

    func pendingTask(context: String?) -> String? {
        guard let context else { return nil }
        return lock.withLock {
            loadIfNeeded()
            return pending[context]
        }
    }

    /// After a reply: remembers the task when it waits for the user, forgets it otherwise.
    func replyEnded(context: String?, taskID: String?, state: A2AWire.TaskState?) {
        guard let context else { return }
        lock.withLock {
            loadIfNeeded()
            let waiting = state?.isInterrupted == true ? taskID : nil
            guard pending[context] != waiting else { return }
            pending[context] = waiting
            save()
        }
    }

    func noteTask(thread: Int64, taskID: String, settled: Bool) {
        lock.withLock { lastTasks[thread] = (taskID, settled) }
    }

    func lastTask(thread: Int64) -> (taskID: String, settled: Bool)? {
        lock.withLock { lastTasks[thread] }
    }

    // MARK: Files

    /// Numbers a received file and keeps it; returns its number.
    func addFile(_ received: A2AReplyProgress.ReceivedFile) -> Int {
        lock.withLock {
            loadIfNeeded()
            let number = (files.last?.number ?? 0) + 1
            files.append(StoredFile(number: number, taskID: received.taskID, artifactID: received.artifactID,
                                    partIndex: received.partIndex, name: received.part.name,
                                    mediaType: received.part.mediaType, size: received.part.bytes?.count,
                                    url: received.part.url))
            if let data = received.part.bytes { bytes[number] = data }
            if files.count > Self.keptFiles { files.removeFirst(files.count - Self.keptFiles) }
            save()
            return number
        }
    }

    var storedFiles: [StoredFile] { lock.withLock { loadIfNeeded(); return files } }

    func file(number: Int) -> (StoredFile, [UInt8]?)? {
        lock.withLock {
            loadIfNeeded()
            return files.first { $0.number == number }.map { ($0, bytes[number]) }
        }
    }

    // MARK: The file on disk

    /// Call with the lock held. A missing or damaged file is an empty state: it holds nothing
    /// that cannot be had again.
    private func loadIfNeeded() {
        guard !loaded else { return }
        loaded = true
        guard let data = FileManager.default.contents(atPath: path), let json = try? JSON.parse(Array(data)) else { return }
        if let saved = json["card"], let url = saved["url"]?.string, let fetched = saved["fetched"]?.double,
           let maxAge = saved["max_age"]?.double, let card = saved["json"] {
            self.card = CachedCard(url: url, fetched: fetched, maxAge: maxAge, json: card)
        }
        for (context, task) in json["pending"]?.object ?? [:] {
            if let task = task.string { pending[context] = task }
        }
        files = (json["files"]?.array ?? []).compactMap { item in
            guard let number = item["number"]?.int, let part = item["part"]?.int else { return nil }
            return StoredFile(number: number, taskID: item["task"]?.string, artifactID: item["artifact"]?.string,
                              partIndex: part, name: item["name"]?.string, mediaType: item["type"]?.string,
                              size: item["size"]?.int, url: item["url"]?.string)
        }
    }

    /// Call with the lock held. Written whole to a temporary file, then renamed over.
    private func save() {
        var json: [String: JSON] = [:]
        if let card {
            json["card"] = ["url": .string(card.url), "fetched": .number(card.fetched), "max_age": .number(card.maxAge),
                            "json": card.json]
        }
        json["pending"] = .object(pending.mapValues(JSON.string))
        json["files"] = .array(files.map { file in
            ["number": JSON(file.number), "task": JSON(file.taskID), "artifact": JSON(file.artifactID),
             "part": JSON(file.partIndex), "name": JSON(file.name), "type": JSON(file.mediaType),
             "size": JSON(file.size), "url": JSON(file.url)]
        })
        let directory = path.deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        let temporary = path + ".tmp-\(getpid())"
        guard let file = PosixFile(writingAtPath: temporary, private: true) else { return }
        do { try file.write(JSONEncoding.bytes(.object(json))) } catch {
            file.close()
            unlink(temporary)
            return
        }
        file.close()
        if rename(temporary, path) != 0 { unlink(temporary) }
    }
}
