// SPDX-License-Identifier: MIT
//
// dom.js - the two DOM helpers every panel uses: element() builds an element
// with properties and children in one expression, table() builds a table
// from a header and rows of cells (strings or elements).

export function element(tag, props = {}, children = [])
{
    const el = document.createElement(tag);
    Object.assign(el, props);
    el.append(...children);
    return el;
}

/** headers: array of text; rows: array of arrays of text or elements. */
export function table(headers, rows, props = {})
{
    const head = element('tr', {}, headers.map((h) => element('th', {textContent: h})));
    const body = rows.map((cells) => element('tr', {}, cells.map(
        (c) => element('td', {}, [c instanceof Node ? c : document.createTextNode(String(c))]))));
    return element('table', props, [element('thead', {}, [head]), element('tbody', {}, body)]);
}
