import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// The history is the user's alone: its files 0600, its folder 0700, however they were before.
/// (Whatever the umask: HistoryPrivacyTests runs hark under umask 000.)
@Suite struct HistoryFilesTests {
    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    @Test func aNewHistoryIsPrivate() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/data/hark/history.db"
        let store = try HistoryStore(path: path)
        try store.ensureSession("local", kind: "local")
        #expect(store.notices.isEmpty, "nothing to tighten in a folder hark made")
        #expect(Self.mode(directory.path + "/data/hark") == 0o700)
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(Self.mode(file) == 0o600, "\(file) is \(String(Self.mode(file), radix: 8))")
        }
    }

    /// A history written and closed in `folder`, with its -wal and -shm: its path.
    static func existingHistory(in folder: String) throws -> String {
        let path = folder + "/history.db"
        let older = try HistoryStore(path: path)
        try older.ensureSession("local", kind: "local")
        return path
    }

    /// An older hark left the folder 0755 and the files 0644: tightened, with one note.
    @Test func anOpenFolderAndFilesAreTightenedWithANote() throws {
        let directory = TemporaryDirectory()
        let folder = directory.path + "/hark"
        let path = try Self.existingHistory(in: folder)
        chmod(folder, 0o755)
        for file in [path, path + "-wal", path + "-shm"] { chmod(file, 0o644) }
        let store = try HistoryStore(path: path)
        #expect(store.notices == ["made \(folder) private (0700): it held the history and others could open it"])
        #expect(Self.mode(folder) == 0o700)
        for file in [path, path + "-wal", path + "-shm"] { #expect(Self.mode(file) == 0o600) }
        #expect(try HistoryStore(path: path).notices.isEmpty, "said once")
    }

    /// Tightening only takes bits away: files the owner made read-only stay read-only, and a
    /// folder keeps the owner's bits it had. (Root writes them anyway: HistoryPrivacyTests
    /// runs hark on a read-only history as an unprivileged user.)
    @Test func tighteningNeverGivesWriteBack() throws {
        let directory = TemporaryDirectory()
        let folder = directory.path + "/hark"
        let path = try Self.existingHistory(in: folder)
        for file in [path, path + "-wal", path + "-shm"] { chmod(file, 0o444) }
        chmod(folder, 0o555)
        _ = HistoryFiles.makePrivate(databasePath: path)
        #expect(Self.mode(folder) == 0o500)
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(Self.mode(file) == 0o400, "\(file) is \(String(Self.mode(file), radix: 8))")
        }
        chmod(folder, 0o700)
    }
}
