export { RoutesPage } from './route-board.js';
export { RoutePage } from './route-view.js';
