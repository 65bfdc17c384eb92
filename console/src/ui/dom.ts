// Building DOM without a framework: h('div.panel', {onclick}, child, …). The console
// is a handful of pages that are redrawn wholesale when their data changes.
type Child = Node | string | number | null | undefined | false | Child[]
type Attributes = Record<string, unknown>

/**
 * An element from a tag with optional `.class`es and `#id` ("button.primary"),
 * attributes (on* are listeners; `dataset`, `style` objects) and children.
 */
export function h<K extends keyof HTMLElementTagNameMap>(spec: K | `${K}.${string}` | `${K}#${string}`, attributes?: Attributes | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const [head, ...classes] = spec.split('.')
  const [tag, id] = (head ?? 'div').split('#')
  const element = document.createElement(tag as K)
  if (id !== undefined) element.id = id
  if (classes.length > 0) element.className = classes.join(' ')
  for (const [name, value] of Object.entries(attributes ?? {})) setAttribute(element, name, value)
  append(element, children)
  return element
}

function setAttribute(element: HTMLElement, name: string, value: unknown): void {
  if (value === undefined || value === null || value === false) return
  if (name.startsWith('on') && typeof value === 'function') {
    element.addEventListener(name.slice(2), value as EventListener)
  } else if (name === 'dataset' && typeof value === 'object') {
    Object.assign(element.dataset, value)
  } else if (name === 'style' && typeof value === 'object') {
    // CSS property names ('flex-grow', '--share'), set through the CSSOM.
    for (const [property, setting] of Object.entries(value as Record<string, string>)) element.style.setProperty(property, setting)
  } else if (name === 'class') {
    element.className = `${element.className} ${String(value)}`.trim()
  } else if (name === 'value' || name === 'checked' || name === 'disabled' || name === 'selected') {
    (element as unknown as Record<string, unknown>)[name] = value
  } else {
    element.setAttribute(name, value === true ? '' : String(value))
  }
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    if (Array.isArray(child)) append(parent, child)
    else parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)))
  }
}

/** Replaces every child of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren()
  append(parent, children)
}

/** An SVG element (the fsync chart draws itself). */
export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number> = {}, ...children: Array<SVGElement | string>): SVGElementTagNameMap[K] {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag)
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value))
  for (const child of children) element.append(child)
  return element
}
