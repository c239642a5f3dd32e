export { ProfilePage } from './profile-page.js';
export { ProfilesPage } from './profiles-page.js';
