import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// `hark backup` while another hark process writes, and `hark restore` of what it wrote: the
/// real binary, the real history file, SQLite's online backup API.
@Suite struct BackupTests {
    func hark(_ arguments: [String], home: TestHome) async throws -> CommandLineTests.Run {
        try await CommandLineTests().hark(arguments, home: home)
    }

    /// The notes of a history file, in order.
    static func notes(_ path: String) throws -> [String] {
        let database = try Database(path: path, readOnly: true)
        return try database.query("SELECT text FROM messages WHERE role = 'user' ORDER BY id").compactMap { $0["text"].string }
    }

    static func integrity(_ path: String) throws -> String? {
        try Database(path: path, readOnly: true).scalar("PRAGMA integrity_check").string
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        stat(path, &info)
        return info.st_mode & 0o777
    }

    @Test func aBackupTakenWhileAnotherHarkWritesIsConsistentAndRestores() async throws {
        let home = TestHome()
        let total = 120
        // Another hark process at work: one note after another, each saying when it is stored.
        let writer = try RunningProcess(["/bin/sh", "-c", """
            i=1
            while [ $i -le \(total) ]; do "$HARK" "note $i" || exit 1; echo $i; i=$((i + 1)); done
            """], environment: home.environment.merging(["HARK": BuiltProducts.hark]) { $1 })
        // Notes 1 to 20 are in (the digits and newlines of "1\n" to "20\n" are 51 bytes).
        #expect(writer.readStdout(atLeast: 51))
        let directory = TemporaryDirectory("hark-backup")
        let backup = directory.file("history-backup.db")
        let made = try await hark(["backup", backup], home: home)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.hasPrefix("backed up the history to \(backup): "))
        #expect(await writer.wait() == 0, "the writer went on while the backup was taken: \(writer.stderrText)")

        // The backup is one private, undamaged file holding notes 1…k in order: a snapshot.
        #expect(Self.mode(backup) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: backup + "-wal"))
        #expect(try Self.integrity(backup) == "ok")
        let saved = try Self.notes(backup)
        #expect(saved.count >= 20 && saved.count <= total)
        #expect(saved == (1...saved.count).map { "note \($0)" })
        #expect(try Self.notes(home.paths.historyDatabase).count == total)

        // Restored, the history is the backup; the one it replaced is kept beside it, whole.
        let restored = try await hark(["restore", backup], home: home)
        #expect(restored.status == 0, "\(restored.stderr)")
        let keptPath = try #require(restored.stdout.split(separator: " ").last.map { String($0.dropLast()) })
        #expect(restored.stdout.hasPrefix("restored the history from \(backup); the one it replaced is kept at \(home.paths.historyDatabase).before-restore-"))
        #expect(try Self.notes(home.paths.historyDatabase) == saved)
        #expect(try Self.integrity(home.paths.historyDatabase) == "ok")
        #expect(try Self.notes(keptPath).count == total)
        #expect(Self.mode(keptPath) == 0o600)
        // hark goes on working on the restored history.
        #expect(try await hark(["after the restore"], home: home).status == 0)
        #expect(try Self.notes(home.paths.historyDatabase).last == "after the restore")
    }

    @Test func damagedNewerOrForeignFilesAreRefusedAndNothingChanges() async throws {
        let home = TestHome()
        #expect(try await hark(["a note to keep"], home: home).status == 0)
        let directory = TemporaryDirectory("hark-backup")
        let backup = directory.file("b.db")
        #expect(try await hark(["backup", backup], home: home).status == 0)
        let again = try await hark(["backup", backup], home: home)
        #expect(again.status == 2)
        #expect(again.stderr == "hark: \(backup) exists; choose another name, or --force replaces it\n")

        // A step this hark does not know: made by a newer one.
        let newer = directory.file("newer.db")
        try FileManager.default.copyItem(atPath: backup, toPath: newer)
        try Database(path: newer).run("INSERT INTO schema_migrations(name, applied_at) VALUES ('099-from-the-future', 0)")
        let refusedNewer = try await hark(["restore", newer], home: home)
        #expect(refusedNewer.status == 2)
        #expect(refusedNewer.stderr.contains("was made by a newer hark (it records the step 099-from-the-future, which this hark does not know); upgrade hark to restore it"))

        // Pages overwritten in the middle of the file.
        let damaged = directory.file("damaged.db")
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: backup)))
        for index in 4096..<min(bytes.count, 4096 * 3) { bytes[index] = 0x5A }
        _ = FileManager.default.createFile(atPath: damaged, contents: Data(bytes))
        let refusedDamaged = try await hark(["restore", damaged], home: home)
        #expect(refusedDamaged.status != 0)
        #expect(refusedDamaged.stderr.contains("nothing was changed") || refusedDamaged.stderr.contains("malformed"),
                "\(refusedDamaged.stderr)")

        let foreign = directory.file("foreign.db")
        try Database(path: foreign).execute("CREATE TABLE t(x)")
        let refusedForeign = try await hark(["restore", foreign], home: home)
        #expect(refusedForeign.stderr == "hark: \(foreign) is not a hark history (it has no schema_migrations); nothing was changed\n")

        #expect(try Self.notes(home.paths.historyDatabase) == ["a note to keep"])
        let files = try FileManager.default.contentsOfDirectory(atPath: home.paths.dataDirectory)
        #expect(!files.contains { $0.contains("before-restore") }, "nothing was swapped")
    }
}
