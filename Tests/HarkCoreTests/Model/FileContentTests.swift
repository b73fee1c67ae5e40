import Foundation
import Testing
@testable import HarkCore

/// What a file is, by its bytes first: the decision every kind's attachments start from.
@Suite struct FileContentTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]

    @Test func theFirstBytesSayWhatAFileIs() {
        #expect(FileContent.of(Self.png, name: "x.txt") == .image("image/png"), "the bytes, not the name")
        #expect(FileContent.of([0xFF, 0xD8, 0xFF, 0xE0], name: "x") == .image("image/jpeg"))
        #expect(FileContent.of(Array("GIF89a..".utf8), name: "x") == .image("image/gif"))
        #expect(FileContent.of(Array("RIFF\0\0\0\0WEBPVP8 ".utf8), name: "x") == .image("image/webp"))
        #expect(FileContent.of(Array("%PDF-1.7\n".utf8), name: "scan") == .pdf)
        #expect(FileContent.of([0x50, 0x4B, 0x03, 0x04, 0], name: "a.docx") == .binary("application/zip"))
        #expect(FileContent.of([0x1F, 0x8B, 0x08], name: "x") == .binary("application/gzip"))
    }

    @Test func textIsUTF8WithoutNULsTypedByItsName() {
        #expect(FileContent.of(Array("# Notes\n".utf8), name: "notes.md") == .text("text/markdown"))
        #expect(FileContent.of(Array("plain".utf8), name: "Makefile") == .text("text/plain"))
        #expect(FileContent.of(Array("{}".utf8), name: "a.json") == .text("application/json"))
        #expect(FileContent.of([0x61, 0, 0x62], name: "notes.txt") == .binary("application/octet-stream"))
        #expect(FileContent.of([0xC3, 0x28], name: "x.wav") == .binary("audio/wav"), "not text: the name's type")
    }

    /// A file's first 64 KB may end inside a character: that does not make it binary.
    @Test func aPrefixMayEndInsideACharacter() {
        let cut = Array("ab한".utf8).dropLast()
        #expect(FileContent.of(Array(cut), name: "x", whole: false) == .text("text/plain"))
        #expect(FileContent.of(Array(cut), name: "x", whole: true) == .binary("application/octet-stream"))
    }

    @Test func aSniffedTypeHasItsExtension() {
        #expect(MimeType.fileExtension(for: "image/png") == "png")
        #expect(MimeType.fileExtension(for: "image/jpeg") == "jpg")
        #expect(MimeType.fileExtension(for: "application/octet-stream") == "bin")
    }
}
