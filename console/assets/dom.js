// Two DOM helpers shared by the console's modules.

// $ returns the element with the id.
export const $ = (id) => document.getElementById(id);

// h builds an element: h("td", {className: "num"}, "text", child, ...).
// Children are appended as nodes or text, never parsed as HTML.
export function h(tag, props = {}, ...children) {
  const el = Object.assign(document.createElement(tag), props);
  for (const c of children) if (c !== null && c !== undefined) el.append(c);
  return el;
}
