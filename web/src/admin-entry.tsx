// The admin as the app loads it: the admin kit, with every module's part registered.
import AdminApp from "./admin/admin-app";
import { registerAdmin } from "./admin/registry";
import { adminParts } from "./modules/admin";

registerAdmin(...adminParts);

export default AdminApp;
