import Testing
@testable import HarkCore

@Suite struct MessageFormattingTests {
    /// FTS5 marks each match with \u{1}…\u{2}; the line shows them bold, line breaks as
    /// spaces, and leaves everything else (emoji, combining marks, CRLF's CR) as it was.
    @Test func matchMarkersBecomeBoldSpans() {
        let line = MessageFormatting.highlighted("…the \u{1}kettle\u{2} is on\r\nnow \u{1}é\u{2}👩‍💻")
        #expect(line.spans == [Span("  "), Span("…the "), Span("kettle", .bold), Span(" is on\r now "),
                               Span("é", .bold), Span("👩‍💻")])
        #expect(MessageFormatting.highlighted("").spans == [Span("  ")])
    }
}
