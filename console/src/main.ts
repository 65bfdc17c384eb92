// Entry point of the bundle (console/build.mjs): starts the console in #app.
import { startApp } from './app.js'

const root = document.getElementById('app')
if (root === null) throw new Error('index.html has no #app element')
startApp(root)
