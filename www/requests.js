// @ts-check
// What modules low in the page ask of the flows above them: open a file, compare two, pick
// the second file of a comparison. main.js gives the answers once, at boot; a module that
// asks names no module above it, and no request goes round through an event.

const answers = { open: null, compare: null, pickForComparison: null };

// `given`: {open(path), compare(a, b, link), pickForComparison(path)} (main.js only).
export function answerRequests(given) {
  Object.assign(answers, given);
}

// Open the archive file at `path` (a link in the info pane, a gallery card's user).
export function requestOpen(path) {
  answers.open(path);
}

// Compare files `a` and `b` (`link`: the view a shared link asks for, or null).
export function requestCompare(a, b, link = null) {
  answers.compare(a, b, link);
}

// `path` is the first file of a comparison; the next file picked is the second.
export function requestPickForComparison(path) {
  answers.pickForComparison(path);
}
