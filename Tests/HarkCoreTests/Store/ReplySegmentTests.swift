import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A reply longer than a segment is stored in pieces; these tests read it back whole.
@Suite struct ReplySegmentTests {
    let directory = TemporaryDirectory()

    /// About 3.5 MB of numbered lines, each naming its own number so any line can be searched.
    static func longText() -> String {
        var text = ""
        for line in 0..<60_000 { text += "line \(line) marker\(line) ünïcode text to fill the row\n" }
        return text
    }

    static func append(_ text: String, to writer: ReplyWriter, inChunksOf size: Int) throws {
        var rest = Substring(text)
        while !rest.isEmpty {
            let chunk = rest.prefix(size)
            try writer.append(String(chunk))
            rest = rest.dropFirst(chunk.count)
        }
    }

    @Test func aLongReplyIsFoldedIntoSegmentsAndReadBackExactly() throws {
        let store = try HistoryStore(path: directory.file("history.db"))
        try store.ensureSession("ci", kind: "jenkins")
        let thread = try store.createThread(session: "ci", title: "console")
        let writer = try store.beginReply(threadID: thread.id, session: "ci")
        let text = Self.longText()
        // Odd-sized chunks, so segment cuts never line up with chunk ends.
        try Self.append(text, to: writer, inChunksOf: 7_919)
        #expect(try store.message(id: writer.messageID)?.text == text, "readable whole while streaming")
        try writer.finish(status: .complete)
        #expect(try store.message(id: writer.messageID)?.text == text)
        let segments = try store.database.scalar("SELECT count(*) FROM message_more WHERE message_id = ?",
                                                 .integer(writer.messageID)).int ?? 0
        #expect(segments >= 2, "kept in segments, not one value")
        #expect(try store.database.scalar("SELECT count(*) FROM message_parts").int == 0)
        // Every segment ends at a space or a line end, so no word is split across two index
        // rows; none is longer than the most a snippet reads.
        for row in try store.database.query("SELECT text FROM message_more WHERE message_id = ? ORDER BY seq",
                                            .integer(writer.messageID)).dropLast() {
            let segment = row["text"].string ?? ""
            #expect(segment.hasSuffix("\n") || segment.hasSuffix(" "))
            #expect(segment.utf8.count <= ReplySegments.maxBytes)
        }
        #expect(try store.message(id: writer.messageID).map { _ in
            try store.database.scalar("SELECT length FROM messages WHERE id = ?", .integer(writer.messageID)).int
        } == text.utf8.count, "the size is recorded")
        #expect(try store.search("marker3").map(\.message.id) == [writer.messageID], "found in the first segment")
        #expect(try store.search("marker59999").map(\.message.id) == [writer.messageID], "found in the last segment")
        #expect(try store.search("marker59999").first?.snippet.contains("marker59999") == true)
        // "line 0" is in the first segment, "line" in every one: one hit, with the first
        // segment's snippet.
        let both = try store.search("line")
        #expect(both.map(\.message.id) == [writer.messageID], "one hit for a message found in several segments")
        #expect(both.first?.snippet.contains("marker0") == true, "the first segment's snippet: \(both.first?.snippet ?? "")")
        #expect(try store.search("marker59999", session: "other").isEmpty, "the session filter applies to the segments too")
        #expect(try store.search("marker59999", session: "ci").count == 1)
    }

    @Test func aLongReplyGoesWithItsThread() throws {
        let store = try HistoryStore(path: directory.file("history.db"))
        try store.ensureSession("ci", kind: "jenkins")
        let thread = try store.createThread(session: "ci", title: "console")
        let writer = try store.beginReply(threadID: thread.id, session: "ci")
        try writer.append(Self.longText())
        try writer.finish(status: .complete)
        try store.deleteThread(id: thread.id)
        #expect(try store.database.scalar("SELECT count(*) FROM message_more").int == 0)
        #expect(try store.search("marker59999").isEmpty, "the index forgets the deleted segments")
    }

    @Test func aSegmentCutAvoidsSplittingACharacter() {
        let text = Array(String(repeating: "é", count: ReplySegments.maxBytes).utf8)  // two bytes each, no spaces
        let cut = text.withUnsafeBufferPointer { ReplySegments.cut($0, final: false) }
        #expect(!cut.segments.isEmpty)
        for range in cut.segments {
            #expect(range.count <= ReplySegments.maxBytes)
            #expect(range.lowerBound % 2 == 0 && range.upperBound % 2 == 0, "cut on a character boundary")
        }
    }

    @Test func theUnfinishedWordWaitsForTheNextPiece() {
        let text = Array((String(repeating: "word ", count: ReplySegments.minBytes / 5 + 10) + "unfini").utf8)
        let cut = text.withUnsafeBufferPointer { ReplySegments.cut($0, final: false) }
        #expect(cut.segments == [0..<(text.count - 6)], "up to the last space")
        #expect(Array(text[cut.rest...]) == Array("unfini".utf8))
        let small = Array("a few words".utf8)
        #expect(small.withUnsafeBufferPointer { ReplySegments.cut($0, final: false) }.segments.isEmpty,
                "less than a segment waits")
        #expect(small.withUnsafeBufferPointer { ReplySegments.cut($0, final: true) }.segments == [0..<small.count])
    }

    /// The stream's own connection never indexes: segments are written unindexed and the
    /// indexer, on its connection, puts them in the index; what it had not done when the
    /// process died is done by the next store that opens the file.
    @Test func segmentsAreIndexedOffTheStreamAndAfterACrash() throws {
        var store: HistoryStore? = try HistoryStore(path: directory.file("history.db"))
        try store!.ensureSession("ci", kind: "jenkins")
        let thread = try store!.createThread(session: "ci", title: "console")
        store!.indexer.pause()
        let writer = try store!.beginReply(threadID: thread.id, session: "ci")
        let text = Self.longText()
        try Self.append(text, to: writer, inChunksOf: 40_000)
        let database = store!.database
        #expect(try database.scalar("SELECT count(*) FROM message_more WHERE unindexed IS NOT NULL").int ?? 0 > 10)
        // The index's own rows (its docsize table), not the content table's.
        #expect(try database.scalar("SELECT count(*) FROM message_more_fts_docsize").int == 0,
                "nothing indexed on the stream's connection")
        #expect(try database.scalar("SELECT count(*) FROM messages_fts_docsize WHERE id = ?", .integer(writer.messageID)).int == 0)
        // The process dies here: a pid that cannot exist, and the indexer never ran.
        try database.run("UPDATE messages SET writer_pid = 2147483646 WHERE id = ?", .integer(writer.messageID))
        store = nil
        let reopened = try HistoryStore(path: directory.file("history.db"))
        try reopened.finishIndexing()
        #expect(try reopened.database.scalar("""
            SELECT (SELECT count(*) FROM message_more WHERE unindexed IS NOT NULL)
                 + (SELECT count(*) FROM messages WHERE unindexed IS NOT NULL)
            """).int == 0, "the next start indexed what was left")
        #expect(try reopened.search("marker59999").map(\.message.id) == [writer.messageID])
        #expect(try reopened.search("marker3").map(\.message.id) == [writer.messageID])
        #expect(try reopened.message(id: writer.messageID)?.text == text)
    }

    /// A one-shot run defers the indexer's passes: its reply's segments stay out of the index
    /// while it streams, and the end of the run (`hark index` in the background, or the run
    /// itself when that cannot start) indexes them all.
    @Test func deferredPassesLeaveTheSegmentsForTheEndOfTheRun() throws {
        let store = try HistoryStore(path: directory.file("history.db"))
        try store.ensureSession("ci", kind: "jenkins")
        let thread = try store.createThread(session: "ci", title: "console")
        store.indexer.deferPasses()
        #expect(!store.indexer.hasDeferredWork)
        let writer = try store.beginReply(threadID: thread.id, session: "ci")
        try Self.append(Self.longText(), to: writer, inChunksOf: 40_000)
        try writer.finish(status: .complete)
        #expect(store.indexer.hasDeferredWork)
        #expect(try store.unindexedCount() > 10)
        #expect(try store.database.scalar("SELECT count(*) FROM message_more_fts_docsize").int == 0,
                "no pass ran while the reply streamed")
        try store.finishIndexing()
        #expect(try store.unindexedCount() == 0)
        #expect(!store.indexer.hasDeferredWork)
        #expect(try store.search("marker59999").map(\.message.id) == [writer.messageID])
    }

    /// A pass asks before each transaction whether to go on: a one-shot run stops the pass that
    /// began as its store opened (what the run before left), and `hark index` waits there while
    /// a reply streams.
    @Test func aPassStopsBeforeAnyTransactionItIsToldTo() throws {
        let store = try HistoryStore(path: directory.file("history.db"))
        try store.ensureSession("ci", kind: "jenkins")
        let thread = try store.createThread(session: "ci", title: "console")
        store.indexer.deferPasses()
        let writer = try store.beginReply(threadID: thread.id, session: "ci")
        try Self.append(Self.longText(), to: writer, inChunksOf: 40_000)
        try writer.finish(status: .complete)
        let pending = try store.unindexedCount()
        let connection = try store.database.sibling()
        var asked = 0
        #expect(try FullTextIndexer.indexPending(connection) { asked += 1; return asked <= 3 } == false)
        #expect(asked == 4)
        let left = try store.unindexedCount()
        #expect(left < pending && left >= pending - 6, "three transactions of a segment (and a message) each")
        #expect(try FullTextIndexer.indexPending(connection))
        #expect(try store.unindexedCount() == 0)
    }

    /// Reads of every size, long words with no break among them: the segments are where
    /// cutting each read joined to the word left waiting puts them (the writer joins only the
    /// first segment's worth of a long read).
    @Test func segmentsFallWhereCuttingTheJoinedTextPutsThem() throws {
        var random = SplitMix(seed: 0x5E6)
        let store = try HistoryStore(path: directory.file("history.db"))
        try store.ensureSession("ci", kind: "jenkins")
        let thread = try store.createThread(session: "ci", title: "console")
        let writer = try store.beginReply(threadID: thread.id, session: "ci")
        var expected: [String] = []
        var pending: [UInt8] = []
        var whole = ""
        for _ in 0..<40 {
            var piece = ""
            let size = [100, 20_000, 65_536, 70_000, 200_003].randomElement(using: &random)!
            while piece.utf8.count < size {
                // Words, a few very long ones (no break for a whole segment), a line end, ü.
                let word = Int.random(in: 0..<30, using: &random) == 0 ? String(repeating: "x", count: 70_000) : "wörd"
                piece += word + (Int.random(in: 0..<8, using: &random) == 0 ? "\n" : " ")
            }
            try writer.append(piece)
            whole += piece
            let bytes = Array(piece.utf8)
            if pending.count + bytes.count < ReplySegments.minBytes {
                pending += bytes
                continue
            }
            let joined = pending + bytes
            let cut = joined.withUnsafeBufferPointer { ReplySegments.cut($0, final: false) }
            expected += cut.segments.map { String(decoding: joined[$0], as: UTF8.self) }
            pending = Array(joined[cut.rest...])
        }
        try writer.finish(status: .complete)
        let last = pending.withUnsafeBufferPointer { ReplySegments.cut($0, final: true) }
        expected += last.segments.map { String(decoding: pending[$0], as: UTF8.self) }
        var stored = [try store.database.scalar("SELECT text FROM messages WHERE id = ?", .integer(writer.messageID)).string ?? ""]
        for row in try store.database.query("SELECT text FROM message_more WHERE message_id = ? ORDER BY seq",
                                            .integer(writer.messageID)) {
            stored.append(row["text"].string ?? "")
        }
        #expect(stored.count == expected.count)
        #expect(stored == expected)
        #expect(stored.joined() == whole)
    }

    /// Where a segment may end is found eight bytes at a time from the end: the same place a
    /// byte-by-byte search finds, for line ends, spaces and tabs anywhere.
    @Test func theLastBreakIsWhereAByteByByteSearchFindsIt() {
        var random = SplitMix(seed: 0xB4EA)
        let alphabet: [UInt8] = [0x61, 0x62, 0x20, 0x09, 0x0A, 0xC3, 0xA9, 0x2E]
        for _ in 0..<3000 {
            let bytes = (0..<Int.random(in: 0...70, using: &random)).map { _ in
                Int.random(in: 0..<4, using: &random) == 0 ? alphabet.randomElement(using: &random)! : 0x61
            }
            let from = Int.random(in: 0...bytes.count, using: &random)
            let to = Int.random(in: from...bytes.count, using: &random)
            for prefers in [true, false] {
                var expected: Int?
                var index = to - 1
                while index >= from {
                    if bytes[index] == 0x0A { expected = index + 1; break }
                    if (bytes[index] == 0x20 || bytes[index] == 0x09) && (expected == nil || !prefers) {
                        if expected == nil { expected = index + 1 }
                        if !prefers { break }
                    }
                    index -= 1
                }
                let found = bytes.withUnsafeBufferPointer { ReplySegments.lastBreak(in: $0, from: from, to: to, preferringLineEnd: prefers) }
                #expect(found == expected, "\(bytes) \(from)..<\(to) prefers line ends: \(prefers)")
            }
        }
    }

    /// A hit is the snippet and the size: a search never reads a long reply's whole text.
    @Test func aSearchHitCarriesItsSnippetAndSizeNotTheText() throws {
        let store = try HistoryStore(path: directory.file("history.db"))
        try store.ensureSession("ci", kind: "jenkins")
        let thread = try store.createThread(session: "ci", title: "console")
        let writer = try store.beginReply(threadID: thread.id, session: "ci")
        let text = Self.longText()
        try writer.append(text)
        try writer.finish(status: .complete)
        let hit = try #require(try store.search("marker41234").first)
        #expect(hit.message.text.isEmpty)
        #expect(hit.length == text.utf8.count)
        #expect(hit.snippet.contains("marker41234"), "the snippet of the segment that matched: \(hit.snippet)")
        #expect(hit.snippet.utf8.count < 400)
        #expect(hit.threadTitle == "console")
    }
}
