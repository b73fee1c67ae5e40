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

    @Test func aLongReplyIsFoldedIntoSegmentsAndReadBackExactly() throws {
        let store = try HistoryStore(path: directory.file("history.db"))
        try store.ensureSession("ci", kind: "jenkins")
        let thread = try store.createThread(session: "ci", title: "console")
        let writer = try store.beginReply(threadID: thread.id, session: "ci")
        let text = Self.longText()
        // Odd-sized chunks, so segment cuts never line up with chunk ends.
        var rest = Substring(text)
        while !rest.isEmpty {
            let chunk = rest.prefix(7_919)
            try writer.append(String(chunk))
            rest = rest.dropFirst(chunk.count)
        }
        #expect(try store.message(id: writer.messageID)?.text == text, "readable whole while streaming")
        try writer.finish(status: .complete)
        #expect(try store.message(id: writer.messageID)?.text == text)
        let segments = try store.database.scalar("SELECT count(*) FROM message_more WHERE message_id = ?",
                                                 .integer(writer.messageID)).int ?? 0
        #expect(segments >= 2, "kept in segments, not one value")
        #expect(try store.database.scalar("SELECT count(*) FROM message_parts").int == 0)
        // Every segment ends at a line end, so no word is split across two index rows.
        for row in try store.database.query("SELECT text FROM message_more WHERE message_id = ? ORDER BY seq",
                                            .integer(writer.messageID)).dropLast() {
            #expect(row[0].string?.hasSuffix("\n") == true)
        }
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
        let text = String(repeating: "é", count: SegmentFolder.segmentBytes)  // two bytes each, no spaces
        let cut = SegmentFolder.cutPoint(in: text)
        let head = text[..<cut]
        #expect(head.utf8.count <= SegmentFolder.segmentBytes)
        #expect(head.utf8.count % 2 == 0, "cut on a character boundary")
    }
}
