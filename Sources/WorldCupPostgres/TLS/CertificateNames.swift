import Foundation
import NIOSSL

/// The names a PostgreSQL server's certificate holds, and whether one of them names the host as
/// libpq checks it for `sslmode=verify-full` (`verify_peer_name_matches_certificate`).
///
/// libpq's rule, which worldcup follows whatever swift-nio-ssl would accept: the host *as
/// written* (never the address connected to) must equal a DNS name of the certificate, case
/// aside, or match a wildcard one (`*` as the whole leftmost label: `*.example.com` names
/// `db.example.com`, not `example.com` nor `a.b.example.com`); or, when the host is written as
/// an IP address, equal an IP address of the certificate. The common name counts only when the
/// certificate has no alternative name of the host's kind (DNS for a name, IP for an address).
/// swift-nio-ssl's own check also accepts an IP address of the certificate equal to the address
/// connected to, so anyone who can point a name at their own address would pass: it is not used.
struct CertificateNames: Equatable, Sendable {
    /// The DNS names of the subject alternative names.
    var dnsNames: [String] = []
    /// The IP addresses of the subject alternative names, as bytes (4 or 16).
    var ipAddresses: [[UInt8]] = []
    /// The subject's (first) common name.
    var commonName: String?

    init(dnsNames: [String] = [], ipAddresses: [[UInt8]] = [], commonName: String? = nil) {
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.commonName = commonName
    }

    /// The names of `certificate`.
    init(of certificate: NIOSSLCertificate) {
        for name in certificate._subjectAlternativeNames() {
            let bytes = Array(name.contents)
            switch name.nameType {
            case .dnsName: dnsNames.append(String(decoding: bytes, as: UTF8.self))
            case .ipAddress where bytes.count == 4 || bytes.count == 16: ipAddresses.append(bytes)
            default: continue
            }
        }
        commonName = (try? certificate.toDERBytes()).flatMap(DERSubject.commonName(ofCertificate:))
    }

    /// The name of the certificate that names `host` as libpq matches it (its text, for
    /// `check`), or nil when none does.
    func match(host: String) -> String? {
        let address = Self.addressBytes(host)
        if let address, ipAddresses.contains(address) { return Self.text(ofAddress: address) }
        // libpq compares DNS names with the host as written even when it is an address.
        if let name = dnsNames.first(where: { Self.name($0, matches: host) }) { return name }
        let sameKind = address == nil ? !dnsNames.isEmpty : !ipAddresses.isEmpty
        if !sameKind, let commonName, Self.name(commonName, matches: host) { return commonName }
        return nil
    }

    /// Every name, for the sentence of a host the certificate does not name: its DNS names and
    /// addresses, or its common name when that is what counts.
    var shown: [String] {
        let alternatives = dnsNames + ipAddresses.map(Self.text(ofAddress:))
        return alternatives.isEmpty ? commonName.map { [$0] } ?? [] : alternatives
    }

    /// Whether the certificate's `name` names `host`: equal (case aside), or a wildcard whose
    /// `*` is the whole leftmost label and stands for one label of at least one character.
    static func name(_ name: String, matches host: String) -> Bool {
        guard !name.contains("\0") else { return false }
        let name = name.lowercased(), host = host.lowercased()
        if name == host { return true }
        guard name.hasPrefix("*."), name.count >= 3, host.count >= name.count, host.hasSuffix(name.dropFirst()) else { return false }
        let label = host.dropLast(name.count - 1)
        return !label.contains(".")
    }

    /// `host`'s bytes when it is written as an IPv4 or IPv6 address (inet_pton's forms).
    static func addressBytes(_ host: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// An address's bytes as text (`127.0.0.1`, `::1`).
    static func text(ofAddress bytes: [UInt8]) -> String {
        var text = [CChar](repeating: 0, count: 64)
        _ = inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, bytes, &text, 64)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
