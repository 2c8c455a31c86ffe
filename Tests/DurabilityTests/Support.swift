import Foundation
import Glibc
import Testing
import TestSupport

/// Whether the tests run as root, for whom file permissions do not bar reading or writing.
let isRoot = geteuid() == 0

/// The one line a failing command prints: "Error: " and one sentence.
func isOneSentenceError(_ stderr: String) -> Bool {
    let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.count == 2, lines[1].isEmpty, lines[0].hasPrefix("Error: ") else { return false }
    let sentence = lines[0].dropFirst("Error: ".count)
    guard let first = sentence.first, first.isUppercase, sentence.hasSuffix(".") else { return false }
    let body = sentence.dropLast()
    return ![". ", "! ", "? "].contains { body.contains($0) } && !body.hasSuffix(".")
}
