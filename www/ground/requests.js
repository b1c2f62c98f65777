// @ts-check
// What modules low in the page ask of the flows above them: open a file, compare two, pick
// the second file of a comparison. main.js gives the answers once, at boot; a module that
// asks names no module above it, and no request goes round through an event.

/**
 * @typedef {object} Answers
 * @property {(path: string) => void} open
 * @property {(a: string, b: string, link: import('./urlstate.js').ViewLink | null) => void} compare
 * @property {(path: string) => void} pickForComparison
 * @property {() => void} grid
 */

// Until main.js answers, a request is an error (none can come before boot ends).
/** @param {string} what */
const unanswered = what => () => {
  throw new Error(`${what} was asked for before the page could answer`);
};
/** @type {Answers} */
const answers = {
  open: unanswered('an open'),
  compare: unanswered('a comparison'),
  pickForComparison: unanswered('a comparison'),
  grid: unanswered('the archive grid'),
};

// `given`: {open(path), compare(a, b, link), pickForComparison(path), grid()} (main.js only).
/** @param {Answers} given */
export function answerRequests(given) {
  Object.assign(answers, given);
}

// Open the archive file at `path` (a link in the info pane, a gallery card's user).
/** @param {string} path */
export function requestOpen(path) {
  answers.open(path);
}

// Compare files `a` and `b` (`link`: the view a shared link asks for, or null).
/** @param {string} a @param {string} b @param {import('./urlstate.js').ViewLink | null} [link] */
export function requestCompare(a, b, link = null) {
  answers.compare(a, b, link);
}

// `path` is the first file of a comparison; the next file picked is the second.
/** @param {string} path */
export function requestPickForComparison(path) {
  answers.pickForComparison(path);
}

// Show the archive grid (a link's `browse=grid`).
export function requestGrid() {
  answers.grid();
}
