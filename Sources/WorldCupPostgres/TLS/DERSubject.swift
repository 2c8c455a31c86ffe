/// Reads the subject's common name out of a certificate's DER bytes: swift-nio-ssl keeps its
/// own reading of it internal, and libpq's host check needs it for certificates that have no
/// alternative name of the host's kind.
enum DERSubject {
    /// One DER element: its tag and where its contents lie in the bytes.
    private struct Element {
        var tag: UInt8
        var contents: Range<Int>
        var end: Int { contents.upperBound }
    }

    /// The element that starts at `start` within `limit`, or nil when the bytes are not DER.
    private static func element(in bytes: [UInt8], at start: Int, limit: Int) -> Element? {
        guard start + 2 <= limit else { return nil }
        var length = Int(bytes[start + 1])
        var offset = start + 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count >= 1, count <= 4, offset + count <= limit else { return nil }
            length = bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
            offset += count
        }
        guard offset + length <= limit else { return nil }
        return Element(tag: bytes[start], contents: offset..<offset + length)
    }

    /// The elements inside `parent`.
    private static func children(of parent: Element, in bytes: [UInt8]) -> [Element]? {
        var found: [Element] = []
        var position = parent.contents.lowerBound
        while position < parent.end {
            guard let child = element(in: bytes, at: position, limit: parent.end) else { return nil }
            found.append(child)
            position = child.end
        }
        return found
    }

    /// The OID of the common name (2.5.4.3).
    private static let commonNameOID: [UInt8] = [0x55, 0x04, 0x03]

    /// The first common name of the subject of the certificate `der`, or nil.
    static func commonName(ofCertificate der: [UInt8]) -> String? {
        guard let certificate = element(in: der, at: 0, limit: der.count),
              let tbs = children(of: certificate, in: der)?.first,
              var fields = children(of: tbs, in: der) else { return nil }
        // version [0] (optional), serial, signature, issuer, validity, subject.
        if fields.first?.tag == 0xA0 { fields.removeFirst() }
        guard fields.count > 4 else { return nil }
        for set in children(of: fields[4], in: der) ?? [] {
            for attribute in children(of: set, in: der) ?? [] {
                guard let parts = children(of: attribute, in: der), parts.count == 2,
                      Array(der[parts[0].contents]) == commonNameOID else { continue }
                return String(decoding: der[parts[1].contents], as: UTF8.self)
            }
        }
        return nil
    }
}
