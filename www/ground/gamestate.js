// @ts-check
// The game's variables set by hand (an FF7 field's story moment: its init places its models
// by them). The core's session keeps them (Session.gameState) and the parsing worker's gets
// the same; this module is the only one that sets them, and shows them in the toolbar's
// field for a file whose scene reads them.

import { $, state } from './state.js';

// Set the variables for the opens from now on: `BANK:ADDRESS=VALUE`, separated by commas or
// spaces ('' every variable 0). Throws, naming what is expected, on text that does not read
// (the state stays as it was). → whether it changed.
/** @param {string} text @returns {boolean} */
export function applyGameState(text) {
  const before = state.session.gameState();
  state.session.setGameState(text);
  const now = state.session.gameState();
  state.opener?.setGameState(now);
  syncGameState();
  return now !== before;
}

// The toolbar's field: shown for a field (its scene reads the variables), holding the state.
export function syncGameState() {
  const entry = state.current ? state.byPath.get(state.current.toLowerCase()) : null;
  $('state-label').hidden = entry?.kind !== 'field-dat';
  const input = $('state-input');
  if (document.activeElement !== input) input.value = state.session.gameState();
  input.setCustomValidity('');
}
