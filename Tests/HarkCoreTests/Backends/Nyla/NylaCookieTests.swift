import Foundation
import Testing
import TestSupport
@testable import HarkCore

@Suite struct NylaCookieTests {
    let now = Date(timeIntervalSince1970: 1_772_528_400)

    @Test func setCookieHeadersAreKeptAndSentBackWhereTheirPathAllows() {
        var jar = CookieJar()
        let changed = jar.absorb("""
            nyla_session=abc123; HttpOnly; Path=/; SameSite=Lax
            nyla_refresh=r-1; HttpOnly; Path=/api/local/refresh; Max-Age=604800
            scoped="quoted"; Secure
            """, requestPath: "/api/local/login", now: now)
        #expect(changed)
        #expect(jar.header(path: "/api/workspace/ws1/start/stream", secureChannel: false, now: now) == "nyla_session=abc123")
        #expect(jar.header(path: "/api/local/refresh", secureChannel: false, now: now) == "nyla_refresh=r-1; nyla_session=abc123")
        #expect(jar.header(path: "/api/local/refreshing", secureChannel: false, now: now) == "nyla_session=abc123")
        // No Path: the login's folder; Secure: only over a secure channel.
        #expect(jar.header(path: "/api/local/me", secureChannel: true, now: now) == "scoped=quoted; nyla_session=abc123")
        let again = jar.absorb("nyla_session=abc123; Path=/", requestPath: "/", now: now)
        #expect(!again, "the same cookie again changes nothing")
    }

    @Test func expiredAndDeletedCookiesGo() {
        var jar = CookieJar()
        jar.absorb("a=1; Path=/; Max-Age=60\nb=2; Path=/; Expires=Wed, 21 Oct 2099 07:28:00 GMT", requestPath: "/", now: now)
        #expect(jar.header(path: "/", secureChannel: false, now: now) == "a=1; b=2")
        #expect(jar.header(path: "/", secureChannel: false, now: now.addingTimeInterval(61)) == "b=2")
        jar.absorb("b=; Path=/; Max-Age=0", requestPath: "/", now: now)
        jar.absorb("a=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT", requestPath: "/", now: now)
        #expect(jar.isEmpty)
    }

    @Test func isoDatesWithFractionsAndZones() {
        #expect(ISODate.parse("2026-03-03T09:00:00Z") == Date(timeIntervalSince1970: 1_772_528_400))
        #expect(ISODate.parse("2026-03-03T10:00:00.250+01:00") == Date(timeIntervalSince1970: 1_772_528_400.25))
        #expect(ISODate.parse("2026-03-03") == Date(timeIntervalSince1970: 1_772_496_000))
        #expect(NylaWire.date(.number(1_772_528_400_000)) == Date(timeIntervalSince1970: 1_772_528_400))
        #expect(ISODate.parse("yesterday") == nil)
    }

    @Test func theLoginFileIsPrivateAndBelongsToOneGateway() throws {
        let home = TestHome()
        let file = NylaLoginFile(paths: home.paths, session: "work")
        var jar = CookieJar()
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        jar.absorb("nyla_session=s3cr3t-cookie; Path=/", requestPath: "/api/local/login", now: now)
        try file.save(NylaLogin(gateway: "https://nyla.example.com", csrf: "0123456789abcdef", user: "Ann", jar: jar,
                                established: true))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: (file.path as NSString).deletingLastPathComponent)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let loaded = try #require(file.load(gateway: "https://nyla.example.com"))
        #expect(loaded.csrf == "0123456789abcdef")
        #expect(loaded.user == "Ann")
        #expect(loaded.jar.header(path: "/api/x", secureChannel: true, now: now) == "nyla_session=s3cr3t-cookie")
        #expect(file.load(gateway: "https://other.example.com") == nil)
        file.delete()
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func csrfTokensAreSixteenHexCharactersAndFresh() {
        let tokens = (0..<50).map { _ in NylaWire.newCSRFToken() }
        #expect(tokens.allSatisfy { $0.count == 16 && $0.allSatisfy { "0123456789abcdef".contains($0) } })
        #expect(Set(tokens).count == tokens.count)
    }
}
