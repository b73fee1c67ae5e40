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

    /// An older hark left the folder 0755 and the files 0644: tightened, with one note.
    @Test func anOpenFolderAndFilesAreTightenedWithANote() throws {
        let directory = TemporaryDirectory()
        let folder = directory.path + "/hark"
        let path = folder + "/history.db"
        do {
            let older = try HistoryStore(path: path)
            try older.ensureSession("local", kind: "local")
        }
        chmod(folder, 0o755)
        for file in [path, path + "-wal", path + "-shm"] { chmod(file, 0o644) }
        let store = try HistoryStore(path: path)
        #expect(store.notices == ["made \(folder) private (0700): it held the history and others could open it"])
        #expect(Self.mode(folder) == 0o700)
        for file in [path, path + "-wal", path + "-shm"] { #expect(Self.mode(file) == 0o600) }
        #expect(try HistoryStore(path: path).notices.isEmpty, "said once")
    }
}
