import { SaxesParser } from 'saxes';

export interface XmlNode {
  name: string;
  attributes: Record<string, string>;
  children: XmlNode[];
  text: string;
}

/** Parses with saxes, a strict XML 1.0 parser: any well-formedness error (or illegal character) throws. Returns the document node. */
export function parseXmlDocument(xml: string): XmlNode {
  const parser = new SaxesParser();
  const root: XmlNode = { name: '#document', attributes: {}, children: [], text: '' };
  const stack = [root];
  parser.on('error', (e) => {
    throw e;
  });
  parser.on('opentag', (tag) => {
    const node: XmlNode = { name: tag.name, attributes: tag.attributes as Record<string, string>, children: [], text: '' };
    stack.at(-1)!.children.push(node);
    stack.push(node);
  });
  parser.on('text', (t) => (stack.at(-1)!.text += t));
  parser.on('closetag', () => stack.pop());
  parser.write(xml).close();
  return root;
}
