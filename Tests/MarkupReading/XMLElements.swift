import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// For the tests of the HTML and SVG the tools write.
/// Every element of an XML document, in document order, with its attributes and its text
/// (its descendants' included); nil from `parse` when the document is not well-formed.
public final class XMLElements: NSObject, XMLParserDelegate {
  public struct Element: Sendable {
    public var name: String
    public var attributes: [String: String]
    public var text = ""
  }

  private(set) var elements: [Element] = []
  private var open: [Int] = []

  public static func parse(_ text: String) -> [Element]? {
    let reader = XMLElements()
    let parser = XMLParser(data: Data(text.utf8))
    parser.delegate = reader
    return parser.parse() ? reader.elements : nil
  }

  public func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    open.append(elements.count)
    elements.append(Element(name: name, attributes: attributes))
  }

  public func parser(_ parser: XMLParser, foundCharacters string: String) {
    for i in open { elements[i].text += string }
  }

  public func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
    open.removeLast()
  }
}
