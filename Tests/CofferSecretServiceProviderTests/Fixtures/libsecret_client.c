/*
 * libsecret's own C calls, as desktop programs make them (Seahorse loads every collection and its
 * items; most programs look a password up). Built by the tests with gcc and pkg-config libsecret-1.
 * Any GLib critical or warning (libsecret's assertions) aborts the program.
 *
 *   libsecret_client collections          secret_service_get_sync (SECRET_SERVICE_LOAD_COLLECTIONS),
 *                                         then secret_collection_load_items_sync on each collection;
 *                                         prints one line per collection: path, label, locked, items
 *   libsecret_client lookup NAME VALUE... secret_password_lookupv_sync with no schema; prints the
 *                                         password, or exits 3 when none is found
 *
 * Exit status: 0 done, 2 an error (its message on stderr), 3 not found.
 */
#include <libsecret/secret.h>
#include <stdio.h>
#include <string.h>

static int
list_collections (void)
{
	GError *error = NULL;
	SecretService *service = secret_service_get_sync (SECRET_SERVICE_LOAD_COLLECTIONS, NULL, &error);
	if (service == NULL) {
		fprintf (stderr, "secret_service_get_sync: %s\n", error->message);
		return 2;
	}
	GList *collections = secret_service_get_collections (service);
	if (collections == NULL) {
		fprintf (stderr, "secret_service_get_collections: no collections loaded\n");
		return 2;
	}
	for (GList *l = collections; l != NULL; l = l->next) {
		SecretCollection *collection = l->data;
		if (!secret_collection_load_items_sync (collection, NULL, &error)) {
			fprintf (stderr, "secret_collection_load_items_sync: %s\n", error->message);
			return 2;
		}
		GList *items = secret_collection_get_items (collection);
		gchar *label = secret_collection_get_label (collection);
		printf ("%s\t%s\t%s\t%u\n", g_dbus_proxy_get_object_path (G_DBUS_PROXY (collection)), label,
		        secret_collection_get_locked (collection) ? "locked" : "unlocked", g_list_length (items));
		g_free (label);
		g_list_free_full (items, g_object_unref);
	}
	g_list_free_full (collections, g_object_unref);
	g_object_unref (service);
	return 0;
}

static int
lookup (int count, char **pairs)
{
	GHashTable *attributes = g_hash_table_new (g_str_hash, g_str_equal);
	for (int i = 0; i + 1 < count; i += 2)
		g_hash_table_insert (attributes, pairs[i], pairs[i + 1]);
	GError *error = NULL;
	gchar *password = secret_password_lookupv_sync (NULL, attributes, NULL, &error);
	g_hash_table_unref (attributes);
	if (error != NULL) {
		fprintf (stderr, "secret_password_lookupv_sync: %s\n", error->message);
		return 2;
	}
	if (password == NULL) {
		fprintf (stderr, "not found\n");
		return 3;
	}
	fputs (password, stdout);
	secret_password_free (password);
	return 0;
}

int
main (int argc, char **argv)
{
	g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
	if (argc >= 2 && strcmp (argv[1], "collections") == 0)
		return list_collections ();
	if (argc >= 4 && argc % 2 == 0 && strcmp (argv[1], "lookup") == 0)
		return lookup (argc - 2, argv + 2);
	fprintf (stderr, "usage: libsecret_client collections | lookup NAME VALUE...\n");
	return 2;
}
