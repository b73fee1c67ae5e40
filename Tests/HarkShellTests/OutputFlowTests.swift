import Foundation
import Testing
import TestSupport
import HarkCore
@testable import HarkShell

/// Text written above a line being edited: what reaches the screen (the fake terminal's, which
/// applies cursor moves and erases as a terminal does) is the reply as a whole, with the line
/// on the row below it, however the reply was cut into writes.
@Suite struct OutputFlowTests {
    /// A flow on a fake terminal `columns` wide whose line is "› " and what was typed.
    final class Screen {
        let terminal: FakeTerminal
        let flow: OutputFlow
        var typed = "abc"

        init(columns: Int = 20) {
            terminal = FakeTerminal(size: TerminalSize(columns: columns, rows: 10), wraps: true)
            flow = OutputFlow(terminal: terminal)
            let terminal = self.terminal
            flow.line = OutputFlow.LineDrawing(erase: { terminal.write("\r\u{1B}[J") },
                                               draw: { [unowned self] in terminal.write("› " + typed) },
                                               cursorRow: { 0 })
        }

        /// The line is drawn below what came before, as a read starts.
        func showLine() {
            flow.showLine()
            flow.line.draw()
        }
    }

    @Test func aReplyWrittenInPiecesStaysAboveTheLine() {
        let screen = Screen()
        screen.showLine()
        for piece in ["Hello ", "wor", "ld\nSecond", " line"] { screen.flow.reply(piece) }
        #expect(screen.terminal.text == "Hello world\nSecond line\n› abc")
    }

    @Test func aRowFilledToTheLastColumnLeavesNoEmptyRow() {
        let screen = Screen(columns: 10)
        screen.showLine()
        screen.flow.reply("0123456789")
        screen.flow.reply("\nnext")
        #expect(screen.terminal.text == "0123456789\nnext\n› abc")
    }

    /// The renderer wrote a word's start to the last column, then takes it to the next row:
    /// carriage return, cursor forward, erase, line end. That goes on the full row, not on
    /// the line's row below it.
    @Test func aWordTakenBackFromAFullRowLeavesTheRowAsTheRendererMeantIt() {
        let screen = Screen(columns: 10)
        screen.showLine()
        screen.flow.reply("one two ab")
        screen.flow.reply("\r\u{1B}[8C\u{1B}[K\nabout")
        #expect(screen.terminal.text == "one two \nabout\n› abc")
    }

    @Test func aNoticeGoesAboveTheRepliesUnfinishedRowWhichStaysWhole() {
        let screen = Screen(columns: 30)
        screen.showLine()
        screen.flow.reply("done\nhalf a line")
        screen.flow.lines("↩ other · done")
        screen.flow.reply(" and the rest\nnext")
        #expect(screen.terminal.text == "done\n↩ other · done\nhalf a line and the rest\nnext\n› abc")
        // A row the terminal wrapped is written again whole too.
        screen.flow.reply(" and a row longer than thirty")
        screen.flow.lines("note")
        #expect(screen.terminal.text == "done\n↩ other · done\nhalf a line and the rest\nnote\nnext and a row longer than thi\nrty\n› abc")
    }

    @Test func aNoticeDuringTheSpinnerLeavesNoSpinnerBehind() {
        let screen = Screen()
        screen.showLine()
        screen.flow.reply("\r⠋ 0.1s\u{1B}[K")
        screen.flow.lines("↩ other · done")
        screen.flow.reply("\r\u{1B}[K")
        screen.flow.reply("the reply")
        #expect(screen.terminal.text == "↩ other · done\nthe reply\n› abc")
    }

    @Test func aLineEnteredStaysAndTheReplyGoesOnAfterIt() {
        let screen = Screen()
        screen.showLine()
        screen.flow.reply("counting: one, ")
        screen.terminal.write("\n")  // Enter: the editor moves below the line it leaves on screen
        screen.flow.lineEntered()
        screen.terminal.write("queued\n")
        screen.typed = ""
        screen.showLine()
        // The reply's own line end after its row was closed leaves no empty row.
        screen.flow.reply("\ntwo")
        screen.flow.hideLine()
        screen.flow.reply("\n(stopped)\n")
        #expect(screen.terminal.text == "counting: one, \n› abc\nqueued\ntwo\n(stopped)\n")
    }

    /// The renderer holds the space at a word break until the next word comes; a line entered
    /// meanwhile ends the row, and the word starts the next row without it.
    @Test(arguments: [false, true])
    func aReplyGoingOnAfterALineEnteredStartsItsRowWithTheWord(markdown: Bool) {
        let screen = Screen(columns: 30)
        let capabilities = TerminalCapabilities(isTTY: true, colors: markdown)
        let view = ReplyView(format: .terminal, capabilities: capabilities, markdown: markdown, width: { 30 },
                             output: { screen.flow.reply($0) }, errorOutput: { _ in })
        screen.flow.replyRowEnded = { view.rowEndedElsewhere() }
        screen.showLine()
        view.render(.text("counting: one, "))
        screen.terminal.write("\n")
        screen.flow.lineEntered()
        screen.typed = ""
        screen.showLine()
        view.render(.text("two, three\n"))
        screen.flow.hideLine()
        let rows = screen.terminal.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Array(rows.prefix(3)) == ["counting: one,", "› abc", "two, three"], "\(screen.terminal.text)")
    }

    @Test func stylesAreSetAgainWhereTheReplyGoesOn() {
        var cursor = FlowCursor()
        _ = cursor.advance("plain \u{1B}[1mbold", columns: 80)
        #expect(cursor.onward(columns: 80) == "\u{1B}[0m\r\n")
        #expect(cursor.back() == "\u{1B}[A\u{1B}[11G\u{1B}[0m\u{1B}[1m")
        _ = cursor.advance(" still\u{1B}[0m done", columns: 80)
        #expect(cursor.style.isEmpty)
        #expect(cursor.column == 21)
    }

    @Test func wideCharactersTakeTwoColumns() {
        var cursor = FlowCursor()
        _ = cursor.advance("日本 ok", columns: 80)
        #expect(cursor.column == 7)
    }

    @Test func anyCutOfTheReplyGivesTheSameScreen() {
        let reply = "First line of it,\nthen a second one that is longer than the width\n\tand a tab, a café, 日本語.\nlast"
        let whole = Screen(columns: 24)
        whole.showLine()
        whole.flow.reply(reply)
        var random = SplitMix(seed: 7)
        for _ in 0..<50 {
            let screen = Screen(columns: 24)
            screen.showLine()
            var rest = Substring(reply)
            while !rest.isEmpty {
                let length = Int(random.next() % 9) + 1
                screen.flow.reply(String(rest.prefix(length)))
                rest = rest.dropFirst(length)
            }
            #expect(screen.terminal.text == whole.terminal.text)
        }
        #expect(whole.terminal.text == "First line of it,\nthen a second one that i\ns longer than the width\n"
            + "        and a tab, a caf\né, 日本語.\nlast\n› abc")
    }
}
